package io.sluice.node.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(30)
class StripedExecutorTest {

    /** A task that records what became of it. */
    private static final class Recorded implements StripedExecutor.StripeTask {
        final Runnable body;
        final AtomicReference<Throwable> abandoned = new AtomicReference<>();
        final CountDownLatch done = new CountDownLatch(1);

        Recorded(Runnable body) {
            this.body = body;
        }

        @Override
        public void run() {
            body.run();
            done.countDown();
        }

        @Override
        public void abandon(Throwable reason) {
            abandoned.set(reason);
            done.countDown();
        }
    }

    @Test
    void tasksOfOneKeyRunInOrderOnOneThread() throws Exception {
        StripedExecutor executor = new StripedExecutor(3, "test-stripe");
        try {
            int keys = 7;
            int perKey = 2000;
            List<List<Integer>> seen = new ArrayList<>();
            ConcurrentHashMap<Integer, ThreadNames> threads = new ConcurrentHashMap<>();
            for (int k = 0; k < keys; k++) {
                seen.add(Collections.synchronizedList(new ArrayList<>()));
            }
            CountDownLatch all = new CountDownLatch(keys * perKey);
            for (int i = 0; i < perKey; i++) {
                for (int k = 0; k < keys; k++) {
                    int key = k;
                    int seq = i;
                    executor.execute(key, new Recorded(() -> {
                        seen.get(key).add(seq);
                        threads.computeIfAbsent(key, x -> new ThreadNames()).add(Thread.currentThread().getName());
                        all.countDown();
                    }));
                }
            }
            assertThat(all.await(20, TimeUnit.SECONDS)).isTrue();
            for (int k = 0; k < keys; k++) {
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < perKey; i++) {
                    expected.add(i);
                }
                assertThat(seen.get(k)).as("key %d", k).isEqualTo(expected);
                assertThat(threads.get(k).names).as("threads of key %d", k)
                        .containsExactly("test-stripe-" + executor.stripeOf(k));
            }
        } finally {
            executor.stop(5, TimeUnit.SECONDS);
        }
    }

    /** Thread names seen for a key. */
    private static final class ThreadNames {
        final Set<String> names = ConcurrentHashMap.newKeySet();

        void add(String name) {
            names.add(name);
        }
    }

    @Test
    void stripeIsTheKeyModuloTheStripes() {
        StripedExecutor executor = new StripedExecutor(4, "test-stripe");
        try {
            assertThat(executor.stripes()).isEqualTo(4);
            assertThat(executor.stripeOf(0)).isEqualTo(0);
            assertThat(executor.stripeOf(5)).isEqualTo(1);
            assertThat(executor.stripeOf(1023)).isEqualTo(3);
        } finally {
            executor.stop(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aThrowingTaskDoesNotStopItsStripe() throws Exception {
        StripedExecutor executor = new StripedExecutor(1, "test-stripe");
        try {
            Recorded after = new Recorded(() -> { });
            executor.execute(0, new Recorded(() -> {
                throw new IllegalStateException("boom");
            }));
            executor.execute(0, after);

            assertThat(after.done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(after.abandoned.get()).isNull();
        } finally {
            executor.stop(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void stopRunsWhatWasQueuedThenRejectsNewTasks() throws Exception {
        StripedExecutor executor = new StripedExecutor(2, "test-stripe");
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            executor.execute(i, new Recorded(ran::incrementAndGet));
        }

        assertThat(executor.stop(10, TimeUnit.SECONDS)).isTrue();

        assertThat(ran).hasValue(100);
        assertThatThrownBy(() -> executor.execute(0, new Recorded(() -> { })))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("stopped");
        assertThat(executor.stop(1, TimeUnit.SECONDS)).as("stop is idempotent").isTrue();
    }

    @Test
    void stopAbandonsQueuedTasksWhenAStripeIsStuck() throws Exception {
        StripedExecutor executor = new StripedExecutor(1, "test-stripe");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Recorded stuck = new Recorded(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Recorded queued = new Recorded(() -> { });
        executor.execute(0, stuck);
        executor.execute(0, queued);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        boolean clean = executor.stop(50, TimeUnit.MILLISECONDS);

        assertThat(clean).isFalse();
        assertThat(queued.done.await(10, TimeUnit.SECONDS)).as("queued task completed somehow").isTrue();
        assertThat(queued.abandoned.get())
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("closed before this batch was applied");
        assertThat(stuck.done.await(10, TimeUnit.SECONDS)).as("the stuck task was interrupted").isTrue();
    }

    @Test
    void aSettledStripeDoesItsIdleWorkAStepAtATimeAndATaskQueuedMeanwhileWaitsForOneStepAtMost() throws Exception {
        StripedExecutor executor = new StripedExecutor(1, "test-stripe");
        try {
            AtomicInteger settledSteps = new AtomicInteger();
            CountDownLatch inFirstStep = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            executor.idleWork((stripe, settled) -> {
                if (!settled) {
                    return false; // the stripe has just run out of tasks: it waits to settle first
                }
                if (settledSteps.incrementAndGet() == 1) {
                    inFirstStep.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return true; // always more to do
            });
            Recorded first = new Recorded(() -> { });
            executor.execute(0, first);
            assertThat(first.done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(inFirstStep.await(10, TimeUnit.SECONDS)).as("settled after the task, idle work started").isTrue();

            AtomicInteger stepsBeforeTask = new AtomicInteger(-1);
            Recorded queued = new Recorded(() -> stepsBeforeTask.set(settledSteps.get()));
            executor.execute(0, queued);
            release.countDown();

            assertThat(queued.done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(stepsBeforeTask.get()).as("the task ran right after the step under way").isEqualTo(1);
        } finally {
            executor.stop(5, TimeUnit.SECONDS);
        }
    }
}
