package io.sluice.binary;

import io.sluice.SluiceException;

/** A field written or read with a type other than the one registered for it. */
public class BinaryTypeMismatchException extends SluiceException {

    public BinaryTypeMismatchException(String typeName, String fieldName, String expected, String actual) {
        super("field '" + fieldName + "' of type '" + typeName + "' is registered as " + expected
                + " but was given " + actual);
    }
}
