package io.sluice.connect.kafka.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * What a task knows of one Kafka topic-partition: the records handed to the streamer (or to the
 * errant record reporter) in offset order with the future that says when each is done, the highest
 * offset handed over ({@link #lastHandled()}, so a redelivered batch is not sent twice), and the
 * highest offset below which every record is done ({@link #committable()}): only that is ever
 * committed.
 *
 * <p>Pending records live in a ring of (offset, future) pairs; consecutive records sharing a future
 * (the streamer's entries of one batch share one) take one slot, whose offset is the last of the run.
 * Used by the task's thread only.
 */
public final class PartitionProgress {

    /** A record that needed no write (skipped): done at once. */
    public static final Future<Void> DONE = CompletableFuture.completedFuture(null);

    private long[] offsets = new long[64];
    private Future<?>[] futures = new Future<?>[64];
    private int head;
    private int size;
    private long lastHandled = -1;
    private long committable = -1;
    /** {@link #committable} when it was last handed to the worker for committing. */
    private long committed = -1;
    private boolean started;
    /** A run of records the node rejected, to be reported as errant when it is delivered again; -1: none. */
    private long rejectedFrom = -1;
    private long rejectedTo = -1;
    private Throwable rejectedCause;
    /** Whether a record of the rejected run came again (the worker's seek took effect). */
    private boolean redelivered;
    /** Per ring slot: whether its record went to the errant record reporter (one record per such slot). */
    private boolean[] reported = new boolean[64];
    /**
     * Offsets already given to the errant record reporter that a seek back ({@link #rejectRun}, {@link #rewind})
     * will deliver again: they are not reported twice. Rare (errant records), so a plain set.
     */
    private final java.util.TreeSet<Long> reportedAhead = new java.util.TreeSet<>();

    /**
     * Whether the record at this offset was already handed over (a redelivery after
     * {@link org.apache.kafka.connect.errors.RetriableException}).
     */
    public boolean handled(long offset) {
        return started && offset <= lastHandled;
    }

    /** Records that the record at this offset was handed over; its outcome is the future's. */
    public void add(long offset, Future<?> future) {
        add(offset, future, false);
    }

    /**
     * Records that the record at this offset went to the errant record reporter; its outcome is the report's. If
     * a seek back delivers it again, {@link #reportedBefore} says so and it is not reported a second time.
     */
    public void addReported(long offset, Future<?> report) {
        add(offset, report, true);
    }

    /**
     * Whether the record at this offset was already given to the errant record reporter before a seek back
     * delivered it again; if so it is handled as done (never reported twice) and true is returned.
     */
    public boolean reportedBefore(long offset) {
        if (reportedAhead.isEmpty() || !reportedAhead.remove(offset)) {
            return false;
        }
        add(offset, DONE);
        return true;
    }

    private void add(long offset, Future<?> future, boolean isReport) {
        if (!started) {
            started = true;
            committable = offset - 1; // the worker starts a partition at its committed offset
            committed = committable;
        }
        lastHandled = offset;
        if (size > 0) {
            int tail = (head + size - 1) & (offsets.length - 1);
            if (futures[tail] == future && !isReport && !reported[tail]) {
                offsets[tail] = offset;
                return;
            }
        }
        if (size == offsets.length) {
            grow();
        }
        int at = (head + size) & (offsets.length - 1);
        offsets[at] = offset;
        futures[at] = future;
        reported[at] = isReport;
        size++;
    }

    /**
     * Moves {@link #committable()} past every leading record that completed normally.
     *
     * @return the cause of the first leading record that failed, or null
     */
    public Throwable advance() {
        while (size > 0) {
            Future<?> f = futures[head];
            if (!f.isDone()) {
                return null;
            }
            Throwable failure = failure(f);
            if (failure != null) {
                return failure;
            }
            committable = offsets[head];
            futures[head] = null;
            reported[head] = false;
            head = (head + 1) & (offsets.length - 1);
            size--;
        }
        return null;
    }

    /**
     * The node rejected the leading run of records (the failure {@link #advance()} returned): every pending
     * record is forgotten and the partition goes back to the run's first offset, so that the run comes
     * again and goes to the errant record reporter ({@link #rejected(long)}) while the records after it
     * are sent again. Only the records of one batch share a run: nothing the node applied is reported.
     *
     * @return the offset to seek to: the first record of the rejected run
     */
    public long rejectRun(Throwable cause) {
        if (size == 0) {
            throw new IllegalStateException("no pending record");
        }
        rejectedFrom = committable + 1;
        rejectedTo = offsets[head];
        rejectedCause = cause;
        redelivered = false;
        forgetPending();
        head = 0;
        size = 0;
        lastHandled = committable;
        return rejectedFrom;
    }

    /**
     * Whether a record past a rejected run came before the run itself was delivered again (the worker
     * seeks only after {@code put} returns): it must not be handed over now, it comes again after the run.
     */
    public boolean awaitingRejectedRun(long offset) {
        return rejectedTo >= 0 && !redelivered && offset > rejectedTo;
    }

    /** Why the node rejected the record at this offset (a run of {@link #rejectRun}), or null. */
    public Throwable rejected(long offset) {
        if (rejectedTo < 0 || offset < rejectedFrom || offset > rejectedTo) {
            return null;
        }
        redelivered = true;
        Throwable cause = rejectedCause;
        if (offset == rejectedTo) {
            rejectedFrom = -1;
            rejectedTo = -1;
            rejectedCause = null;
        }
        return cause;
    }

    /** The highest offset below which (inclusive) every record is done; -1 if none is known. */
    public long committable() {
        return committable;
    }

    /**
     * Notes that {@link #committable()} was handed to the worker to commit; a {@link #rewind()} goes
     * back to it.
     */
    public void committing() {
        committed = committable;
    }

    /** Whether any record has been handed over since the partition was assigned. */
    public boolean started() {
        return started;
    }

    /** The highest offset handed over. */
    public long lastHandled() {
        return lastHandled;
    }

    /** Records handed over and not yet known done (runs sharing a future count once). */
    public int pending() {
        return size;
    }

    /**
     * Forgets every pending record and goes back to the offsets last handed to the worker to commit
     * ({@link #committing()}): those records and everything after them will be delivered again, also
     * the ones a node acknowledged since (a node that lost its memory gets them again).
     *
     * @return the offset to rewind to, or -1 if nothing was handed over
     */
    public long rewind() {
        long to = started ? committed + 1 : -1;
        forgetPending();
        head = 0;
        size = 0;
        if (started) {
            committable = committed;
            lastHandled = committed;
        }
        return to;
    }

    /** Drops every pending slot, keeping the offsets of those that went to the errant record reporter. */
    private void forgetPending() {
        for (int i = 0; i < size; i++) {
            int at = (head + i) & (offsets.length - 1);
            if (reported[at]) {
                reportedAhead.add(offsets[at]);
                reported[at] = false;
            }
            futures[at] = null;
        }
    }

    private static Throwable failure(Future<?> f) {
        if (f instanceof CompletableFuture<?> cf) {
            if (!cf.isCompletedExceptionally()) {
                return null;
            }
        }
        try {
            f.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    private void grow() {
        int n = offsets.length;
        long[] o = new long[n * 2];
        Future<?>[] f = new Future<?>[n * 2];
        boolean[] r = new boolean[n * 2];
        for (int i = 0; i < size; i++) {
            o[i] = offsets[(head + i) & (n - 1)];
            f[i] = futures[(head + i) & (n - 1)];
            r[i] = reported[(head + i) & (n - 1)];
        }
        offsets = o;
        futures = f;
        reported = r;
        head = 0;
    }
}
