package io.sluice.binary.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.binary.Binary;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.BinaryType;

/**
 * The implementation of {@link Binary} and {@link ValueCodec}: owns the type registry. One
 * instance is shared by an embedded node and every client in its JVM. Thread-safe.
 *
 * <p>STUB: the binary-objects issue fills this in; the signatures are the contract.
 */
public final class BinaryContext implements Binary, ValueCodec {

    public BinaryContext() {
    }

    @Override
    public void encode(Object value, GrowableBuffer out) {
        throw new UnsupportedOperationException("binary encoding is not implemented yet");
    }

    @Override
    public Object decode(byte[] bytes, int offset, int length, boolean keepBinary) {
        throw new UnsupportedOperationException("binary decoding is not implemented yet");
    }

    @Override
    public BinaryObjectBuilder builder(String typeName) {
        throw new UnsupportedOperationException();
    }

    @Override
    public BinaryObject toBinary(Object pojo) {
        throw new UnsupportedOperationException();
    }

    @Override
    public BinaryObject fromJson(String json, String typeName) {
        throw new UnsupportedOperationException();
    }

    @Override
    public BinaryObject fromJson(JsonNode json, String typeName) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String toJson(BinaryObject object) {
        throw new UnsupportedOperationException();
    }

    @Override
    public BinaryType type(String typeName) {
        throw new UnsupportedOperationException();
    }
}
