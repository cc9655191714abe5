package io.sluice.cachestore.jdbc.internal;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a JDBC store's next batch tries a plain {@code INSERT} before its upsert
 * ({@link io.sluice.cachestore.jdbc.JdbcStoreConfig.Builder#insertFirst}). A plain insert of new rows costs
 * PostgreSQL about 0.6 of the CPU of {@code INSERT ... ON CONFLICT DO UPDATE}; one that meets a present key
 * fails whole with a unique violation and the batch is upserted. After such a conflict the store upserts at
 * once for its next {@link #PAUSE} calls, so a workload of updates pays one failed statement in
 * {@code PAUSE + 1} calls. Counting is approximate under concurrency, which only moves the next try by a call
 * or two. Thread-safe.
 */
public final class InsertFirst {

    /** Calls upserted at once after a conflict. */
    public static final int PAUSE = 64;
    /** PostgreSQL's SQLSTATE for a unique violation. */
    private static final String UNIQUE_VIOLATION = "23505";

    private final boolean enabled;
    private final AtomicInteger upsertsLeft = new AtomicInteger();
    private final AtomicLong conflicts = new AtomicLong();

    public InsertFirst(boolean enabled) {
        this.enabled = enabled;
    }

    /** Whether the next call tries a plain insert; a call told no counts toward the pause. */
    public boolean tryInsert() {
        if (!enabled) {
            return false;
        }
        if (upsertsLeft.get() <= 0) {
            return true;
        }
        upsertsLeft.decrementAndGet();
        return false;
    }

    /** Records that a tried insert met a present key: the next {@link #PAUSE} calls upsert at once. */
    public void conflicted() {
        conflicts.incrementAndGet();
        upsertsLeft.set(PAUSE);
    }

    /** How many tried inserts met a present key (tests, metrics). */
    public long conflicts() {
        return conflicts.get();
    }

    /** Whether the failure (or one it chains: pgjdbc wraps a batch's failure) is a unique violation. */
    public static boolean isUniqueViolation(SQLException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException e && UNIQUE_VIOLATION.equals(e.getSQLState())) {
                return true;
            }
            if (t instanceof BatchUpdateException b && b.getNextException() != null
                    && UNIQUE_VIOLATION.equals(b.getNextException().getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
