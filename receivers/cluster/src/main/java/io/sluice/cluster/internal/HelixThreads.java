package io.sluice.cluster.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets a node process exit after it left its cluster. The leading controller schedules delayed rebalances on
 * static executors of Helix ({@code RebalanceScheduler}) whose one thread is not a daemon and is never shut down;
 * before the first manager connects, each gets an executor of daemon threads instead. If Helix's internals differ
 * from 2.0.1's, this logs and changes nothing (the node process then ends with System.exit).
 *
 * <p>Also ends a spectator's router thread that outlived its shutdown ({@link #endRouterUpdater}).
 */
final class HelixThreads {

    private static final Logger LOG = LoggerFactory.getLogger(HelixThreads.class);
    private static final String[][] STATIC_SCHEDULERS = {
            {"org.apache.helix.controller.rebalancer.util.DelayedRebalanceUtil", "REBALANCE_SCHEDULER"},
            {"org.apache.helix.task.AbstractTaskDispatcher", "_rebalanceScheduler"},
            {"org.apache.helix.controller.stages.TaskGarbageCollectionStage", "_rebalanceScheduler"},
    };
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static boolean done;

    private HelixThreads() {
    }

    static synchronized void makeSchedulersDaemon() {
        if (done) {
            return;
        }
        done = true;
        for (String[] s : STATIC_SCHEDULERS) {
            try {
                Field field = Class.forName(s[0]).getDeclaredField(s[1]);
                field.setAccessible(true);
                Object scheduler = field.get(null);
                Field executor = scheduler.getClass().getDeclaredField("_rebalanceExecutor");
                executor.setAccessible(true);
                ScheduledExecutorService old = (ScheduledExecutorService) executor.get(scheduler);
                executor.set(scheduler, Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "helix-rebalance-scheduler-" + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }));
                old.shutdownNow();
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.warn("could not make Helix's rebalance scheduler {}.{} a daemon: a node process may need "
                        + "System.exit to end", s[0], s[1], e);
            }
        }
    }

    /** How long {@link #endRouterUpdater} keeps interrupting a router thread that did not end. */
    private static final long ROUTER_END_NANOS = TimeUnit.SECONDS.toNanos(5);

    /**
     * Ends the router thread of a {@link org.apache.helix.spectator.RoutingTableProvider} that was shut down. Its
     * shutdown is one interrupt, and the thread (not a daemon) loops until it sees itself interrupted; when the
     * interrupt lands while it waits for ZooKeeper, Helix's callback logs "Interrupted waiting for success" and
     * swallows it, and the thread goes back to wait for events forever, keeping the JVM alive (1 run in 3 of
     * {@code NodeProcessExitTest} on a busy machine). Interrupting it again while it waits for events ends it.
     * Waits at most 5 s; if Helix's internals differ from 2.0.1's, this logs and does nothing.
     */
    static void endRouterUpdater(org.apache.helix.spectator.RoutingTableProvider routing) {
        Thread updater;
        try {
            Field field = routing.getClass().getDeclaredField("_routerUpdater");
            field.setAccessible(true);
            updater = (Thread) field.get(routing);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("could not reach Helix's routing table updater thread to end it: a node process may need "
                    + "System.exit to end", e);
            return;
        }
        long deadline = System.nanoTime() + ROUTER_END_NANOS;
        try {
            while (updater.isAlive() && System.nanoTime() - deadline < 0) {
                updater.join(100);
                if (updater.isAlive()) {
                    updater.interrupt();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (updater.isAlive()) {
            LOG.warn("Helix's routing table updater thread {} did not end", updater.getName());
        }
    }
}
