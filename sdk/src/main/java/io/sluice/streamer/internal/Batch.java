package io.sluice.streamer.internal;

import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.EntryBatch;

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

    /** Where a batch ends; set once. */
    enum FinalState {
        SUCCEEDED,
        FAILED,
        CANCELLED
    }

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Batch.class, "state", FinalState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int partition;
    private final BatchLedger ledger;
    /** Where the array goes back when the batch succeeded (only a built-in receiver's batches: see BatchArrays). */
    private final BatchArrays arrays;
    private final BatchFuture future = new BatchFuture();
    /** Null while pending; set once, through STATE. */
    @SuppressWarnings("unused")
    private volatile FinalState state;
    /** Set once by seal, under the partition buffer's lock; read after the hand-over to the sender. */
    private EntryBatch entries;

    Batch(int partition, BatchLedger ledger, BatchArrays arrays) {
        this.arrays = arrays;
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
        return state != null;
    }

    /** Takes over the buffer's bytes; from here on the ledger tracks the batch until its final state. */
    void seal(byte[] data, int length, int count) {
        this.entries = new EntryBatch(data, length, count);
        ledger.sealed(this);
    }

    /** Applies the node's outcome: succeeded, or failed with the outcome's error. */
    void complete(BatchOutcome outcome) {
        if (outcome.succeeded() && outcome.failed() == 0) {
            done(FinalState.SUCCEEDED, size(), null);
            return;
        }
        Throwable cause = outcome.error() != null ? outcome.error()
                : new IllegalStateException(outcome.failed() + " of " + size() + " entries of partition "
                + partition + " were not applied and the node gave no reason");
        done(FinalState.FAILED, Math.max(0, Math.min(outcome.applied(), size())), cause);
    }

    /** Fails the whole batch (the request failed, or the batch could not be sent). */
    void fail(Throwable cause) {
        done(FinalState.FAILED, 0, cause);
    }

    /** Cancels the batch unless it already reached a final state. */
    void cancel(String reason) {
        done(FinalState.CANCELLED, 0, new CancellationException(reason));
    }

    /**
     * The one way a batch ends: the first final state set wins, and only it is recorded in the
     * ledger, completes the shared future and lets the ledger forget the batch.
     *
     * @param applied entries the node applied
     * @param cause   null if succeeded
     */
    private void done(FinalState finalState, int applied, Throwable cause) {
        if (!STATE.compareAndSet(this, null, finalState)) {
            return;
        }
        ledger.finished(this, applied, cause);
        if (cause == null) {
            future.succeed();
        } else {
            future.fail(cause);
        }
        ledger.forget(this);
        if (finalState == FinalState.SUCCEEDED) {
            arrays.give(entries.data());
        }
    }

    @Override
    public String toString() {
        return "Batch{partition=" + partition + ", entries=" + (entries == null ? "open" : entries.size())
                + ", state=" + (state == null ? "PENDING" : state) + '}';
    }
}
