package io.sluice.streamer.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one future every entry of a batch shares. Callers may wait on it and chain from it but not
 * complete or cancel it: one caller completing it would change the outcome every other entry of the
 * batch sees. Only the {@link Batch} completes it.
 */
final class BatchFuture extends CompletableFuture<Void> {

    @Override
    public boolean complete(Void value) {
        throw readOnly();
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        throw readOnly();
    }

    @Override
    public void obtrudeValue(Void value) {
        throw readOnly();
    }

    @Override
    public void obtrudeException(Throwable ex) {
        throw readOnly();
    }

    @Override
    public CompletableFuture<Void> completeAsync(Supplier<? extends Void> supplier) {
        throw readOnly();
    }

    @Override
    public CompletableFuture<Void> completeAsync(Supplier<? extends Void> supplier, Executor executor) {
        throw readOnly();
    }

    /** A timeout on a shared future is the caller's own: it applies to (and returns) a copy. */
    @Override
    public CompletableFuture<Void> orTimeout(long timeout, TimeUnit unit) {
        return copy().orTimeout(timeout, unit);
    }

    /** A timeout on a shared future is the caller's own: it applies to (and returns) a copy. */
    @Override
    public CompletableFuture<Void> completeOnTimeout(Void value, long timeout, TimeUnit unit) {
        return copy().completeOnTimeout(value, timeout, unit);
    }

    /** A shared batch future is not cancelled by one of its holders; {@code close(true)} cancels batches. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    /** Futures chained from this one are ordinary futures, owned by whoever chained them. */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }

    void succeed() {
        super.complete(null);
    }

    void fail(Throwable cause) {
        super.completeExceptionally(cause);
    }

    private static UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException("a batch future is shared by every entry of the batch and is "
                + "completed only by the streamer");
    }
}
