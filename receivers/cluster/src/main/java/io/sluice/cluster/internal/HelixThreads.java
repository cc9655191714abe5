package io.sluice.cluster.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets a node process exit after it left its cluster. The leading controller schedules delayed rebalances on
 * static executors of Helix ({@code RebalanceScheduler}) whose one thread is not a daemon and is never shut down;
 * before the first manager connects, each gets an executor of daemon threads instead. If Helix's internals differ
 * from 2.0.1's, this logs and changes nothing (the node process then ends with System.exit).
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
}
