package io.sluice.store.internal;

/**
 * Marks the writes the calling thread makes while it applies a streamer's {@code skipStore} batch, so the log
 * can say so: recovery then does not queue those keys for a write-behind store (the streamer asked to leave
 * the store alone). Per thread, as a batch applies on one apply thread from start to end; a flag read once per
 * logged record.
 */
public final class SkipStoreWrites {

    private static final ThreadLocal<boolean[]> ACTIVE = ThreadLocal.withInitial(() -> new boolean[1]);

    private SkipStoreWrites() {
    }

    /** Until {@link #end}, this thread's writes skip the store. */
    public static void begin() {
        ACTIVE.get()[0] = true;
    }

    public static void end() {
        ACTIVE.get()[0] = false;
    }

    /** Whether this thread is applying a skipStore batch. */
    public static boolean active() {
        return ACTIVE.get()[0];
    }
}
