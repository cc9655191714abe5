package io.sluice;

/**
 * Thrown when a query's value has another type than the indexed field's values (error kind 15): an {@code int}
 * for a {@code long} field, say. Values compare as their encodings, so such a query could only find nothing.
 */
public class IndexValueTypeException extends SluiceException {

    public IndexValueTypeException(String message) {
        super(message);
    }
}
