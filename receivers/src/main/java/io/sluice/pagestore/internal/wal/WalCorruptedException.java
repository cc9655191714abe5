package io.sluice.pagestore.internal.wal;

import io.sluice.SluiceException;

/**
 * The write-ahead log is damaged somewhere other than its tail (a record or a segment header fails
 * its check, with more log after it): recovery stops rather than skip what is there. The message
 * names the file and the byte position.
 */
public final class WalCorruptedException extends SluiceException {
    public WalCorruptedException(String message) {
        super(message);
    }

    public WalCorruptedException(String message, Throwable cause) {
        super(message, cause);
    }
}
