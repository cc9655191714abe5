package io.sluice;

/** The base of every exception Sluice throws on its own account. */
public class SluiceException extends RuntimeException {

    public SluiceException(String message) {
        super(message);
    }

    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
