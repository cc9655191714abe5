package io.sluice.cachestore.jdbc.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Calls run alone or together, each exactly once, each with its own outcome. */
@Timeout(60)
class GroupCommitTest {

    /** Records groups; a call named "bad" fails whatever it runs in; a gate can hold the first group. */
    private static final class RecordingWork implements GroupCommit.Work<String> {
        final List<List<String>> groups = new CopyOnWriteArrayList<>();
        final List<String> alone = new CopyOnWriteArrayList<>();
        final Set<String> applied = ConcurrentHashMap.newKeySet();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger mostRunning = new AtomicInteger();
        volatile CountDownLatch gate = new CountDownLatch(0);
        volatile CountDownLatch entered = new CountDownLatch(0);
        volatile boolean databaseAway;

        private void enter() throws InterruptedException {
            mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            entered.countDown();
            gate.await();
        }

        @Override
        public void runGroup(List<String> calls) throws Exception {
            enter();
            try {
                groups.add(List.copyOf(calls));
                if (databaseAway) {
                    throw new SQLTransientConnectionException("connection refused", "08001");
                }
                if (calls.contains("bad")) {
                    throw new IllegalArgumentException("bad data in the group");
                }
                applied.addAll(calls);
            } finally {
                running.decrementAndGet();
            }
        }

        @Override
        public void runAlone(String call) throws Exception {
            enter();
            try {
                alone.add(call);
                if (databaseAway) {
                    throw new SQLTransientConnectionException("connection refused", "08001");
                }
                if (call.equals("bad")) {
                    throw new IllegalArgumentException("bad data in " + call);
                }
                if (!applied.add(call)) {
                    throw new AssertionError(call + " ran twice");
                }
            } finally {
                running.decrementAndGet();
            }
        }

        @Override
        public boolean failsEveryCall(Exception groupFailure) {
            return TransientErrors.isTransient(groupFailure);
        }

        @Override
        public Exception failureOf(String call, Exception groupFailure) {
            return new IllegalStateException(call + " failed with its group", groupFailure);
        }
    }

    @Test
    void aCallFindingALeaderFreeRunsAloneAtOnce() throws Exception {
        RecordingWork work = new RecordingWork();
        GroupCommit<String> group = new GroupCommit<>(work, 2, 64);
        group.run("a");
        group.run("b");
        assertThat(work.alone).containsExactly("a", "b");
        assertThat(work.groups).isEmpty();
    }

    @Test
    void callsArrivingWhileTheLeadersAreBusyRunAsOneGroup() throws Exception {
        RecordingWork work = new RecordingWork();
        work.gate = new CountDownLatch(1);
        work.entered = new CountDownLatch(1);
        GroupCommit<String> group = new GroupCommit<>(work, 1, 64);
        ExecutorService threads = Executors.newFixedThreadPool(9);
        try {
            Future<?> first = threads.submit(() -> {
                group.run("first");
                return null;
            });
            assertThat(work.entered.await(10, TimeUnit.SECONDS)).isTrue();
            List<Future<?>> waiting = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String name = "c" + i;
                waiting.add(threads.submit(() -> {
                    group.run(name);
                    return null;
                }));
            }
            await().atMost(10, TimeUnit.SECONDS).until(() -> group.waiting() == 8);
            work.gate.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (Future<?> f : waiting) {
                f.get(10, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(work.alone).containsExactly("first");
        assertThat(work.groups).hasSize(1);
        assertThat(work.groups.get(0)).containsExactlyInAnyOrder("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7");
        assertThat(work.applied).hasSize(9);
        assertThat(work.mostRunning.get()).isEqualTo(1);
    }

    @Test
    void aGroupFailingOnOneCallsDataRunsItsCallsAloneSoOnlyThatCallFails() throws Exception {
        RecordingWork work = new RecordingWork();
        work.gate = new CountDownLatch(1);
        work.entered = new CountDownLatch(1);
        GroupCommit<String> group = new GroupCommit<>(work, 1, 64);
        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            Future<?> first = threads.submit(() -> {
                group.run("first");
                return null;
            });
            assertThat(work.entered.await(10, TimeUnit.SECONDS)).isTrue();
            List<Future<?>> good = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String name = "good" + i;
                good.add(threads.submit(() -> {
                    group.run(name);
                    return null;
                }));
            }
            Future<?> bad = threads.submit(() -> {
                group.run("bad");
                return null;
            });
            await().atMost(10, TimeUnit.SECONDS).until(() -> group.waiting() == 4);
            work.gate.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (Future<?> f : good) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertThatThrownBy(() -> bad.get(10, TimeUnit.SECONDS)).hasRootCauseInstanceOf(IllegalArgumentException.class)
                    .hasStackTraceContaining("bad data in bad");
        } finally {
            threads.shutdownNow();
        }
        assertThat(work.groups).hasSize(1);
        assertThat(work.applied).containsExactlyInAnyOrder("first", "good0", "good1", "good2");
        assertThat(work.alone).containsExactlyInAnyOrder("first", "good0", "good1", "good2", "bad");
    }

    @Test
    void aGroupFailingBecauseTheDatabaseIsAwayFailsEveryCallWithoutRunningThemAlone() throws Exception {
        RecordingWork work = new RecordingWork();
        work.gate = new CountDownLatch(1);
        work.entered = new CountDownLatch(1);
        GroupCommit<String> group = new GroupCommit<>(work, 1, 64);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            Future<?> first = threads.submit(() -> {
                group.run("first");
                return null;
            });
            assertThat(work.entered.await(10, TimeUnit.SECONDS)).isTrue();
            List<Future<?>> later = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String name = "later" + i;
                later.add(threads.submit(() -> {
                    group.run(name);
                    return null;
                }));
            }
            await().atMost(10, TimeUnit.SECONDS).until(() -> group.waiting() == 3);
            work.databaseAway = true;
            work.gate.countDown();
            assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS)).hasRootCauseInstanceOf(SQLTransientConnectionException.class);
            for (int i = 0; i < later.size(); i++) {
                Future<?> f = later.get(i);
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasMessageContaining("failed with its group")
                        .hasRootCauseInstanceOf(SQLTransientConnectionException.class);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(work.groups).hasSize(1);
        assertThat(work.alone).containsExactly("first");
        assertThat(work.applied).isEmpty();
    }

    @Test
    void underContentionEveryCallRunsExactlyOnceAndNoMoreLeadersThanAllowed() throws Exception {
        RecordingWork work = new RecordingWork();
        GroupCommit<String> group = new GroupCommit<>(work, 2, 5);
        int threads = 16;
        int callsEach = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < callsEach; i++) {
                        group.run(thread + "-" + i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(work.applied).hasSize(threads * callsEach);
        List<String> ran = new ArrayList<>(work.alone);
        work.groups.forEach(ran::addAll);
        Collections.sort(ran);
        assertThat(ran).doesNotHaveDuplicates().hasSize(threads * callsEach);
        assertThat(work.groups).allSatisfy(g -> assertThat(g).hasSizeBetween(2, 5));
        assertThat(work.mostRunning.get()).isLessThanOrEqualTo(2);
        assertThat(group.waiting()).isZero();
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new GroupCommit<>(new RecordingWork(), 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupCommit<>(new RecordingWork(), 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
