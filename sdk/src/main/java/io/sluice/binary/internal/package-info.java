/**
 * Internal: binary objects and the one tagged encoding of keys and values ({@code docs/binary-format.md}).
 * <ul>
 *   <li>{@link io.sluice.binary.internal.BinaryContext}: the type registry and codec an embedded node and its
 *       clients share ({@link io.sluice.binary.internal.TypeRegistry}, {@link io.sluice.binary.internal.TypeMeta},
 *       {@link io.sluice.binary.internal.Schema}, {@link io.sluice.binary.internal.TypeMetadata} for the registry as
 *       bytes);</li>
 *   <li>writing: {@link io.sluice.binary.internal.ValueEncoder} into a {@link io.sluice.binary.internal.GrowableBuffer},
 *       {@link io.sluice.binary.internal.BinaryObjectBuilderImpl} straight into the stored form
 *       ({@link io.sluice.binary.internal.ObjectLayout}), into an object's array or, as a
 *       {@link io.sluice.binary.internal.DirectBuilder}, into a streamer's scratch, POJOs through {@link io.sluice.binary.internal.ClassLayout} and
 *       the {@link io.sluice.binary.internal.PojoWriter} generated for their class
 *       ({@link io.sluice.binary.internal.PojoWriters}, {@link io.sluice.binary.internal.ClassFileBuilder}; else
 *       {@link io.sluice.binary.internal.ReflectivePojoWriter});</li>
 *   <li>reading: {@link io.sluice.binary.internal.ValueReader}, {@link io.sluice.binary.internal.BinaryObjectImpl}
 *       (a flyweight over the bytes), {@link io.sluice.binary.internal.FieldLocator},
 *       {@link io.sluice.binary.internal.Deserializer}; {@link io.sluice.binary.internal.ValueValidator} checks bytes
 *       from outside without decoding them;</li>
 *   <li>JSON: {@link io.sluice.binary.internal.JsonConverter}.</li>
 * </ul>
 * May change without notice.
 */
package io.sluice.binary.internal;
