package io.sluice.binary.internal;

import io.sluice.binary.BinaryObject;

/**
 * A builder that can build an object in the array it wrote the values into, for a caller that copies the object's
 * bytes at once and keeps nothing of it: the Kafka sink hands each record's object to a streamer, whose
 * {@code addData} copies the bytes into its batch before it returns. An array per object (and the copy into it) was
 * about a tenth of what a sink task allocated per record (docs/benchmarks-results.md, issue 29). The builders
 * {@link io.sluice.binary.Binary#builder} returns implement it.
 */
public interface ReusedArrayBuilder {

    /**
     * Builds the object as {@link io.sluice.binary.BinaryObjectBuilder#build()} does, the same bytes, but in the
     * array the builder wrote the values into (no copy, no array of its own): the object is valid only until this
     * builder's next set or build (its bytes are overwritten then). Read or copy it before that; never keep it, put it
     * in a collection or hand it to anything that may keep it.
     *
     * @throws io.sluice.binary.BinaryTypeMismatchException as {@code build()}
     */
    BinaryObject buildInReusedArray();
}
