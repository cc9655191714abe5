package io.sluice.binary.internal;

import io.sluice.binary.BinaryObjectBuilder;

/**
 * A builder that writes its object straight into a buffer instead of making it: how a streamer adds a builder's
 * value ({@link io.sluice.DataStreamer#addFromBuilder}) with no object, no array and no second copy. The builders
 * {@link io.sluice.binary.Binary#builder} returns implement it.
 */
public interface DirectBuilder extends BinaryObjectBuilder {

    /** The context that made this builder: the one whose type registry its objects' type and schema are in. */
    BinaryContext context();

    /**
     * Appends the object {@link #build()} would return, byte for byte, at {@code out}'s position (its schema
     * registered as {@code build()} registers it), and leaves the builder empty as {@code build()} does. If it
     * throws, the builder is left empty too and {@code out}'s position is where it was.
     *
     * @throws IllegalArgumentException if the object or {@code out} would outgrow a Java array
     */
    void buildInto(GrowableBuffer out);

    /**
     * Drops the fields set since the last {@link #build()}: the builder is as that build left it (its next object
     * starts empty and keeps the fast path of the previous object's layout). Fields a set registered with the
     * type stay registered.
     */
    void clear();
}
