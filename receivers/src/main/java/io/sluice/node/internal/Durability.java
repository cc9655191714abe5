package io.sluice.node.internal;

import io.sluice.pagestore.internal.wal.WriteAheadLog;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Waits for a node's writes to be durable per the write-ahead log's mode: what a cache operation and the
 * transport's batches wait for before they answer. Without persistence everything is durable at once; on an apply
 * thread nothing waits (the batch's task waits for its batch as a whole). Thread-safe.
 */
final class Durability {

    /** The log, or null without persistence. */
    private final WriteAheadLog wal;
    private final StripedExecutor stripes;

    Durability(WriteAheadLog wal, StripedExecutor stripes) {
        this.wal = wal;
        this.stripes = stripes;
    }

    /**
     * Blocks until every write this thread made is durable per the WAL mode (at once without
     * persistence, or on an apply thread).
     *
     * @throws io.sluice.pagestore.internal.wal.WalFailedException if the log failed
     */
    void awaitDurable() {
        if (wal != null && !stripes.isStripeThread()) {
            wal.awaitDurable(wal.end());
        }
    }

    /**
     * Calls done (with null, or the log's failure) once every write made so far is durable per the WAL
     * mode: at once without persistence, else on this thread or the log's writer thread (it must not block).
     */
    void whenDurable(Consumer<Throwable> done) {
        if (wal == null) {
            done.accept(null);
        } else {
            wal.whenDurable(wal.end(), done);
        }
    }

    /** The future's result, once the writes made before it completed are durable. */
    <T> CompletableFuture<T> durable(CompletableFuture<T> future) {
        if (wal == null || stripes.isStripeThread()) {
            return future;
        }
        return future.thenCompose(value -> {
            CompletableFuture<T> out = new CompletableFuture<>();
            whenDurable(error -> {
                if (error == null) {
                    out.complete(value);
                } else {
                    out.completeExceptionally(error);
                }
            });
            return out;
        });
    }
}
