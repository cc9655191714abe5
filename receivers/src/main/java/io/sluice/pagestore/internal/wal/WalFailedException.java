package io.sluice.pagestore.internal.wal;

import io.sluice.SluiceException;

/**
 * The write-ahead log could not write or sync (a full disk, an I/O error). The writes it was to make
 * durable fail with this exception; the node stays up and readable, and refuses further writes to a
 * persistent region until it is restarted (a restart replays what reached the log).
 */
public final class WalFailedException extends SluiceException {
    public WalFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
