package io.sluice.streamer.internal;

import io.sluice.protocol.BatchOutcome;
import io.sluice.protocol.EntryBatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;

/**
 * One partition's entries on their way to the node, and their fate. A batch is opened by the first
 * entry of a partition buffer (so {@code addData} can return its future at once), sealed when the
 * buffer hands over its bytes, then reaches exactly one final state: succeeded, failed or
 * cancelled. The first final transition wins; later ones (a node answering after
 * {@code close(true)} cancelled the batch, say) are ignored.
 */
final class Batch {

    private static final int PENDING = 0;
    private static final int SUCCEEDED = 1;
    private static final int FAILED = 2;
    private static final int CANCELLED = 3;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Batch.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int partition;
    private final BatchLedger ledger;
    private final BatchFuture future = new BatchFuture();
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state = PENDING;
    /** Set once by seal, under the partition buffer's lock; read after the hand-over to the sender. */
    private EntryBatch entries;

    Batch(int partition, BatchLedger ledger) {
        this.partition = partition;
        this.ledger = ledger;
    }

    int partition() {
        return partition;
    }

    BatchFuture future() {
        return future;
    }

    /** The sealed entries; null while the batch is open. */
    EntryBatch entries() {
        return entries;
    }

    int size() {
        return entries.size();
    }

    /** Encoded bytes of the sealed entries: what they reserved of the buffer memory. */
    int bytes() {
        return entries.length();
    }

    boolean isDone() {
        return state != PENDING;
    }

    /** Takes over the buffer's bytes; from here on the ledger tracks the batch until its final state. */
    void seal(byte[] data, int length, int count) {
        this.entries = new EntryBatch(data, length, count);
        ledger.sealed(this);
    }

    /** Applies the node's outcome: succeeded, or failed with the outcome's error. */
    void complete(BatchOutcome outcome) {
        if (outcome.succeeded() && outcome.failed() == 0) {
            if (transition(SUCCEEDED)) {
                ledger.finished(this, size(), null);
                future.succeed();
                ledger.forget(this);
            }
            return;
        }
        Throwable cause = outcome.error() != null ? outcome.error()
                : new IllegalStateException(outcome.failed() + " of " + size() + " entries of partition "
                + partition + " were not applied and the node gave no reason");
        int applied = Math.max(0, Math.min(outcome.applied(), size()));
        if (transition(FAILED)) {
            ledger.finished(this, applied, cause);
            future.fail(cause);
            ledger.forget(this);
        }
    }

    /** Fails the whole batch (the request failed, or the batch could not be sent). */
    void fail(Throwable cause) {
        if (transition(FAILED)) {
            ledger.finished(this, 0, cause);
            future.fail(cause);
            ledger.forget(this);
        }
    }

    /** Cancels the batch unless it already reached a final state. */
    void cancel(String reason) {
        if (transition(CANCELLED)) {
            CancellationException cause = new CancellationException(reason);
            ledger.finished(this, 0, cause);
            future.fail(cause);
            ledger.forget(this);
        }
    }

    private boolean transition(int finalState) {
        return STATE.compareAndSet(this, PENDING, finalState);
    }

    @Override
    public String toString() {
        return "Batch{partition=" + partition + ", entries=" + (entries == null ? "open" : entries.size())
                + ", state=" + state + '}';
    }
}
