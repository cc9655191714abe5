package io.sluice.connect.kafka.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter, bounded in total: the waits between reconnection attempts and
 * the deadline after which the task gives up. Used by the task's thread only.
 */
public final class Backoff {

    private final long initialMs;
    private final long maxMs;
    private final long timeoutMs;
    private long failingSinceMs = -1;
    private int attempts;

    public Backoff(Duration initial, Duration max, Duration timeout) {
        this.initialMs = initial.toMillis();
        this.maxMs = Math.max(max.toMillis(), initialMs);
        this.timeoutMs = timeout.toMillis();
    }

    /** Records a failure at {@code nowMs}; @return how long to wait before the next attempt */
    public long failed(long nowMs) {
        if (failingSinceMs < 0) {
            failingSinceMs = nowMs;
        }
        long base = Math.min(maxMs, initialMs << Math.min(attempts, 20));
        attempts++;
        // full jitter on the upper half: waits stay between base/2 and base
        return base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
    }

    /** Whether failures have lasted longer than the timeout. */
    public boolean exhausted(long nowMs) {
        return failingSinceMs >= 0 && nowMs - failingSinceMs > timeoutMs;
    }

    /** How long failures have lasted, or 0. */
    public long failingForMs(long nowMs) {
        return failingSinceMs < 0 ? 0 : nowMs - failingSinceMs;
    }

    public int attempts() {
        return attempts;
    }

    /** A success: the next failure starts over. */
    public void reset() {
        failingSinceMs = -1;
        attempts = 0;
    }
}
