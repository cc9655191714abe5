package io.sluice.binary;

import io.sluice.SluiceException;

/** Bytes that are not a valid encoding: says what is wrong and at which offset. */
public class BinaryFormatException extends SluiceException {

    public BinaryFormatException(String message) {
        super(message);
    }
}
