package io.sluice.protocol.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the futures of {@code Cache}'s {@code ...Async} methods complete, remote and embedded alike: off the caller's
 * thread, off Netty's event loops and the node's apply threads, so that a continuation may block or call the cache
 * again.
 *
 * <p>Not {@code ForkJoinPool.commonPool()}: on a machine of two cores its parallelism is 1, and then
 * {@code CompletableFuture} replaces it, even when passed explicitly, by a new thread per task — measured: half
 * of a remote client's CPU went to starting threads, 12,000 pipelined gets a second. Here threads are reused: one
 * idle takes the next task, a new one starts only when none is idle (a continuation that blocks never holds up the
 * others), and one idle for 60 s ends. Daemon threads, named {@code sluice-async-N}; one pool for the JVM, as
 * the common pool is.
 */
public final class Completions {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private static final Executor EXECUTOR = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "sluice-async-" + THREADS.getAndIncrement());
                t.setDaemon(true);
                return t;
            });

    private Completions() {
    }

    /** The executor async results complete on. */
    public static Executor executor() {
        return EXECUTOR;
    }
}
