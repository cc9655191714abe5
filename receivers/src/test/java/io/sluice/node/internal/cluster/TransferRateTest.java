package io.sluice.node.internal.cluster;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The node-wide send rate: reservations queue behind each other at the rate, with at most a short burst. */
class TransferRateTest {

    @Test
    void reservationsAreSpacedAtTheRate() {
        TransferRate rate = new TransferRate(1 << 20);
        long first = rate.reserve(1 << 20);
        long second = rate.reserve(1 << 20);
        long third = rate.reserve(1 << 20);
        long fourth = rate.reserve(1 << 20);
        assertThat(first).isZero(); // the saved burst
        // Each MiB waits about one more second than the one before (the burst is 0.1 s; nanoTime moves a little).
        assertThat(second).isBetween(TimeUnit.MILLISECONDS.toNanos(800), TimeUnit.MILLISECONDS.toNanos(1000));
        assertThat(third - second).isBetween(TimeUnit.MILLISECONDS.toNanos(900), TimeUnit.MILLISECONDS.toNanos(1000));
        assertThat(fourth).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(2_500));
    }

    @Test
    void bytesGivenBackAreNotWaitedFor() {
        TransferRate rate = new TransferRate(1 << 20);
        rate.reserve(1 << 20); // the burst
        long second = rate.reserve(8 << 20); // about 0.9 s
        rate.unreserve(8 << 20); // that send ended while it waited
        long third = rate.reserve(1 << 20);
        // It goes where the second would have gone, not 8 s after it.
        assertThat(third - second).isBetween(-TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void noLimitNeverWaits() {
        TransferRate rate = new TransferRate(0);
        for (int i = 0; i < 100; i++) {
            assertThat(rate.reserve(1L << 30)).isZero();
        }
    }
}
