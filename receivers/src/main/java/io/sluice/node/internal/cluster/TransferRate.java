package io.sluice.node.internal.cluster;

/**
 * The node-wide rate of partition file sends (ClusterConfig.moveBytesPerSecond): each send reserves its bytes and
 * is told when it may go, so that the node's sends together stay under the rate; nobody waits inside (a sender on
 * Netty's event loop schedules its next chunk for then). Up to {@link #BURST_NANOS} of unused time is saved, no
 * more. Thread-safe.
 */
final class TransferRate {

    /** Idle time saved for a burst, at most. */
    static final long BURST_NANOS = 100_000_000L;

    private final long bytesPerSecond;
    /** When the bytes reserved so far are all sent at the rate (guarded by this). */
    private long freeAt = Long.MIN_VALUE;

    /** @param bytesPerSecond 0 for no limit */
    TransferRate(long bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("bytesPerSecond " + bytesPerSecond + " < 0");
        }
        this.bytesPerSecond = bytesPerSecond;
    }

    /** Reserves {@code bytes}: returns in how many nanoseconds they may be sent (0: now). */
    long reserve(long bytes) {
        if (bytesPerSecond == 0) {
            return 0;
        }
        long cost = (long) (bytes * 1e9 / bytesPerSecond);
        long now = System.nanoTime();
        synchronized (this) {
            long start = freeAt == Long.MIN_VALUE || freeAt - (now - BURST_NANOS) < 0 ? now - BURST_NANOS : freeAt;
            freeAt = start + cost;
            return Math.max(0, start - now);
        }
    }

    /**
     * Gives back bytes reserved and not sent (a send that ended while its chunk waited): later reservations start
     * that much sooner. Those already made keep their times, so for a moment the rate may be exceeded by at most
     * what was given back; over time it holds.
     */
    void unreserve(long bytes) {
        if (bytesPerSecond == 0) {
            return;
        }
        long cost = (long) (bytes * 1e9 / bytesPerSecond);
        synchronized (this) {
            if (freeAt != Long.MIN_VALUE) {
                freeAt -= cost;
            }
        }
    }

    long bytesPerSecond() {
        return bytesPerSecond;
    }
}
