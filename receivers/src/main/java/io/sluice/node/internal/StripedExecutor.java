package io.sluice.node.internal;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs tasks on a fixed set of threads, each with its own FIFO queue; a task is queued to the
 * stripe {@code key % stripes}. Tasks of one key therefore run one at a time and in submission
 * order, which is what lets receivers apply a partition's batches without per-entry locks.
 *
 * <p>Tasks implement {@link StripeTask}: a task that will never run because the executor stopped
 * is {@linkplain StripeTask#abandon(Throwable) abandoned} instead of silently dropped, so whoever
 * waits for it is told.
 *
 * <p>A stripe whose queue is empty runs its {@link IdleWork} (if one is set) one step at a time, looking at its
 * queue again after each step: a task queued meanwhile waits for at most one step. The work is told whether the
 * stripe has had no task for {@link #SETTLE_MILLIS} (settled) or has just run out.
 */
final class StripedExecutor {

    /** A unit of work that can be told it will never run. */
    interface StripeTask extends Runnable {
        /** Called instead of {@link #run()} when the executor stopped before the task ran. */
        void abandon(Throwable reason);
    }

    /** Work a stripe does while its queue is empty, in short steps. */
    interface IdleWork {
        /**
         * Does one short step of work for the stripe (its thread calls).
         *
         * @param settled whether the stripe has had no task for {@link #SETTLE_MILLIS} (else it has just run out)
         * @return whether it did something (then the stripe looks at its queue and calls again if it is empty),
         *         false if there is nothing to do (then the stripe waits for a task)
         */
        boolean step(int stripe, boolean settled);
    }

    /** A stripe with no task for this long is settled ({@link IdleWork#step}). */
    static final long SETTLE_MILLIS = 1000;

    private static final StripeTask POISON = new StripeTask() {
        @Override
        public void run() {
        }

        @Override
        public void abandon(Throwable reason) {
        }
    };

    private final Stripe[] stripes;
    /** No new tasks are accepted. */
    private volatile boolean stopped;
    /** Queued tasks are abandoned instead of run (the stop timeout passed). */
    private volatile boolean abandoning;
    /** What a stripe does while its queue is empty, or null. */
    private volatile IdleWork idleWork;

    /**
     * Starts the threads.
     *
     * @param stripes    number of threads
     * @param threadName prefix of the threads' names; a stripe's index is appended
     */
    StripedExecutor(int stripes, String threadName) {
        if (stripes < 1) {
            throw new IllegalArgumentException("stripes is " + stripes + "; it must be at least 1");
        }
        this.stripes = new Stripe[stripes];
        for (int i = 0; i < stripes; i++) {
            this.stripes[i] = new Stripe(threadName + "-" + i, i);
        }
        for (Stripe stripe : this.stripes) {
            stripe.thread.start();
        }
    }

    /** Sets what the stripes do while their queues are empty (null: nothing). */
    void idleWork(IdleWork work) {
        this.idleWork = work;
    }

    /** Number of stripes. */
    int stripes() {
        return stripes.length;
    }

    /** Tasks waiting in the stripe's queue (not counting the one its thread runs); O(1). */
    int queued(int stripe) {
        return stripes[stripe].queue.size();
    }

    /** The stripe that runs tasks of this key. */
    int stripeOf(int key) {
        return Math.floorMod(key, stripes.length);
    }

    /**
     * Queues the task on the key's stripe.
     *
     * @throws RejectedExecutionException if the executor was stopped
     */
    void execute(int key, StripeTask task) {
        if (stopped) {
            throw new RejectedExecutionException("the node's apply threads are stopped (the node is closed)");
        }
        Stripe stripe = stripes[stripeOf(key)];
        stripe.queue.add(task);
        // Raced with stop(): the task may sit behind the poison where no thread will take it.
        if (stopped && stripe.queue.remove(task)) {
            throw new RejectedExecutionException("the node's apply threads are stopped (the node is closed)");
        }
    }

    /**
     * Stops the threads: lets each finish the tasks queued before the call, within the timeout;
     * then interrupts what still runs and abandons what is still queued. Idempotent.
     *
     * @return true if every stripe finished its queue within the timeout
     */
    boolean stop(long timeout, TimeUnit unit) {
        if (!stopped) {
            stopped = true;
            for (Stripe stripe : stripes) {
                stripe.queue.add(POISON);
            }
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        boolean clean = true;
        for (Stripe stripe : stripes) {
            if (!join(stripe.thread, deadline)) {
                clean = false;
            }
        }
        if (!clean) {
            abandoning = true;
            for (Stripe stripe : stripes) {
                stripe.thread.interrupt();
            }
        }
        return clean;
    }

    /** Whether the calling thread is one of this executor's stripe threads. */
    boolean isStripeThread() {
        return currentStripe() >= 0;
    }

    /** The stripe whose thread is calling, or -1 if the caller is not one of this executor's threads. */
    int currentStripe() {
        return Thread.currentThread() instanceof StripeThread t && t.owner == this ? t.stripe : -1;
    }

    /** A stripe's thread, which knows its stripe (so a task can tell where it runs without a lookup). */
    private final class StripeThread extends Thread {
        final StripedExecutor owner = StripedExecutor.this;
        final int stripe;

        StripeThread(Runnable body, String name, int stripe) {
            super(body, name);
            this.stripe = stripe;
        }
    }

    private static boolean join(Thread thread, long deadlineNanos) {
        try {
            long millis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (millis > 0) {
                thread.join(millis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** One thread and its queue. */
    private final class Stripe implements Runnable {
        final BlockingQueue<StripeTask> queue = new LinkedBlockingQueue<>();
        final Thread thread;
        final int index;

        Stripe(String name, int index) {
            this.index = index;
            this.thread = new StripeThread(this, name, index);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            boolean settled = false; // no task for SETTLE_MILLIS since the last one
            while (true) {
                StripeTask task = queue.poll();
                if (task == null) {
                    if (idleStep(settled)) {
                        continue;
                    }
                    try {
                        if (!settled && idleWork != null) {
                            task = queue.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS);
                            if (task == null) {
                                settled = true;
                                continue;
                            }
                        } else {
                            task = queue.take();
                        }
                    } catch (InterruptedException e) {
                        continue; // only stop() interrupts, and it has queued the poison
                    }
                }
                settled = false;
                if (task == POISON) {
                    return;
                }
                if (abandoning) {
                    task.abandon(new RejectedExecutionException("the node closed before this batch was applied"));
                    continue;
                }
                // A task must not kill its stripe: tasks report their own failures.
                try {
                    task.run();
                } catch (Throwable t) {
                    Thread.UncaughtExceptionHandler handler = thread.getUncaughtExceptionHandler();
                    handler.uncaughtException(thread, t);
                }
            }
        }

        /** One step of the idle work; false if there was none (or it failed: the stripe then waits for a task). */
        private boolean idleStep(boolean settled) {
            IdleWork work = idleWork;
            if (work == null || stopped) {
                return false;
            }
            try {
                return work.step(index, settled);
            } catch (Throwable t) {
                thread.getUncaughtExceptionHandler().uncaughtException(thread, t);
                return false;
            }
        }
    }
}
