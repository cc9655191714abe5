package io.sluice.streamer.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class BatchArraysTest {

    @Test
    void aGivenArrayIsTakenAgainWhenLargeEnough() {
        BatchArrays pool = new BatchArrays(16, 1 << 20);
        byte[] a = new byte[1000];
        pool.give(a);
        assertThat(pool.kept()).isEqualTo(1);
        assertThat(pool.take(2000, 2000)).as("too small: dropped, a new one").isNotSameAs(a).hasSize(2000);
        assertThat(pool.kept()).isZero();
        pool.give(a);
        assertThat(pool.take(500, 800)).isSameAs(a);
    }

    @Test
    void boundedByArraysAndBytes() {
        BatchArrays byBytes = new BatchArrays(16, 2500);
        for (int i = 0; i < 5; i++) {
            byBytes.give(new byte[1000]);
        }
        assertThat(byBytes.kept()).isEqualTo(2);
        BatchArrays byCount = new BatchArrays(4, 1 << 20);
        for (int i = 0; i < 10; i++) {
            byCount.give(new byte[10]);
        }
        assertThat(byCount.kept()).isEqualTo(4);
        assertThat(BatchArrays.disabled().take(1, 7)).hasSize(7);
        BatchArrays.disabled().give(new byte[10]);
        assertThat(BatchArrays.disabled().kept()).isZero();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentTakersNeverGetTheSameArrayTwice() throws Exception {
        BatchArrays pool = new BatchArrays(64, 1 << 20);
        int threads = 4;
        int rounds = 20_000;
        List<Thread> workers = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            byte mark = (byte) (t + 1);
            Thread w = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        byte[] a = pool.take(16, 16);
                        a[0] = mark;
                        Thread.onSpinWait();
                        if (a[0] != mark) {
                            throw new AssertionError("an array was handed to two takers at once");
                        }
                        pool.give(a);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            workers.add(w);
            w.start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertThat(failures).isEmpty();
        assertThat(pool.kept()).isBetween(1, 64);
    }
}
