/**
 * Internal: the sink task's parts. {@link io.sluice.connect.kafka.internal.RecordConverter} turns a record into a
 * key and a value ({@link io.sluice.connect.kafka.internal.BinaryValues} for Structs and maps,
 * {@link io.sluice.connect.kafka.internal.JsonValues} for JSON text or bytes) or fails it with a
 * {@link io.sluice.connect.kafka.internal.ConversionException}, as the
 * {@link io.sluice.connect.kafka.internal.ConversionSettings} built by the public config say;
 * {@link io.sluice.connect.kafka.internal.PartitionProgress} tracks each topic-partition's offsets until the streamer
 * has stored them; {@link io.sluice.connect.kafka.internal.Backoff} paces reconnection;
 * {@link io.sluice.connect.kafka.internal.ConfigDocs} writes the config reference of {@code docs/kafka-connect.md}.
 * Nothing here uses the public package {@code io.sluice.connect.kafka}, which uses these parts (no package cycle).
 * May change without notice.
 */
package io.sluice.connect.kafka.internal;
