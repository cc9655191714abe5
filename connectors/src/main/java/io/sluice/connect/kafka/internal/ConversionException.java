package io.sluice.connect.kafka.internal;

/** A record could not be converted to a cache entry: an errant record (dead letter queue or task failure). */
public final class ConversionException extends RuntimeException {

    public ConversionException(String message) {
        super(message);
    }

    public ConversionException(String message, Throwable cause) {
        super(message, cause);
    }
}
