package io.sluice.connect.kafka.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionProgressTest {

    @Test
    void onlyTheHighestContiguousAcknowledgedOffsetIsCommittable() {
        PartitionProgress p = new PartitionProgress();
        CompletableFuture<Void> a = new CompletableFuture<>();
        CompletableFuture<Void> b = new CompletableFuture<>();
        p.add(10, a);
        p.add(11, b);
        p.add(12, a);
        assertThat(p.committable()).isEqualTo(9); // everything before the first record was committed already
        b.complete(null);
        assertThat(p.advance()).isNull();
        assertThat(p.committable()).as("10 is not acknowledged: 11 cannot be committed").isEqualTo(9);
        a.complete(null);
        p.advance();
        assertThat(p.committable()).isEqualTo(12);
        assertThat(p.pending()).isZero();
    }

    @Test
    void consecutiveRecordsOfOneBatchShareASlot() {
        PartitionProgress p = new PartitionProgress();
        CompletableFuture<Void> a = new CompletableFuture<>();
        for (int i = 0; i < 1000; i++) {
            p.add(i, a);
        }
        assertThat(p.pending()).isEqualTo(1);
        a.complete(null);
        p.advance();
        assertThat(p.committable()).isEqualTo(999);
    }

    @Test
    void aFailedBatchStopsTheCommittableOffsetAndIsReported() {
        PartitionProgress p = new PartitionProgress();
        CompletableFuture<Void> ok = CompletableFuture.completedFuture(null);
        CompletableFuture<Void> bad = new CompletableFuture<>();
        p.add(0, ok);
        p.add(1, bad);
        p.add(2, PartitionProgress.DONE);
        bad.completeExceptionally(new IllegalStateException("node gone"));
        assertThat(p.advance()).hasMessage("node gone");
        assertThat(p.committable()).isEqualTo(0);
    }

    @Test
    void rewindGoesBackToTheLastCommittedOffsetAndRedeliveredRecordsAreNotSkipped() {
        PartitionProgress p = new PartitionProgress();
        p.add(100, PartitionProgress.DONE);
        p.add(101, PartitionProgress.DONE);
        p.advance();
        p.committing(); // 101 handed to the worker
        p.add(102, PartitionProgress.DONE);
        p.add(103, new CompletableFuture<>());
        p.advance();
        assertThat(p.committable()).isEqualTo(102);
        assertThat(p.handled(103)).isTrue();
        assertThat(p.rewind()).as("back to what the worker was given to commit").isEqualTo(102);
        assertThat(p.committable()).isEqualTo(101);
        assertThat(p.handled(102)).isFalse();
        assertThat(p.handled(101)).isTrue();
        assertThat(p.pending()).isZero();
    }

    @Test
    void ringGrowsAndKeepsOrder() {
        PartitionProgress p = new PartitionProgress();
        CompletableFuture<?>[] fs = new CompletableFuture<?>[500];
        for (int i = 0; i < 500; i++) {
            fs[i] = new CompletableFuture<>();
            p.add(i, fs[i]);
        }
        for (int i = 0; i < 300; i++) {
            fs[i].complete(null);
        }
        p.advance();
        assertThat(p.committable()).isEqualTo(299);
        for (int i = 500; i < 700; i++) {
            p.add(i, PartitionProgress.DONE);
        }
        for (int i = 300; i < 500; i++) {
            fs[i].complete(null);
        }
        p.advance();
        assertThat(p.committable()).isEqualTo(699);
    }

    @Test
    void backoffGrowsWithJitterUpToTheMaxAndGivesUpAfterTheTimeout() {
        Backoff b = new Backoff(java.time.Duration.ofMillis(100), java.time.Duration.ofMillis(1000),
                java.time.Duration.ofMillis(5000));
        long w1 = b.failed(0);
        assertThat(w1).isBetween(50L, 100L);
        for (int i = 0; i < 10; i++) {
            assertThat(b.failed(10)).isBetween(0L, 1000L);
        }
        assertThat(b.failed(100)).isBetween(500L, 1000L);
        assertThat(b.exhausted(5000)).isFalse();
        assertThat(b.exhausted(5001)).isTrue();
        b.reset();
        assertThat(b.exhausted(100_000)).isFalse();
    }

    @Test
    void aRejectedRunComesBackAsErrantAndTheRecordsAfterItAreSentAgain() {
        PartitionProgress p = new PartitionProgress();
        CompletableFuture<Void> ok = CompletableFuture.completedFuture(null);
        CompletableFuture<Void> refused = new CompletableFuture<>();
        CompletableFuture<Void> later = new CompletableFuture<>();
        p.add(5, ok);
        p.add(6, refused);
        p.add(7, refused);
        p.add(8, later);
        IllegalArgumentException cause = new IllegalArgumentException("refused");
        refused.completeExceptionally(cause);
        assertThat(p.advance()).isSameAs(cause);
        assertThat(p.rejectRun(cause)).as("seek to the run's first record").isEqualTo(6);
        assertThat(p.pending()).isZero();
        assertThat(p.committable()).isEqualTo(5);
        assertThat(p.handled(8)).as("8 is sent again").isFalse();
        assertThat(p.awaitingRejectedRun(8)).as("before the seek took effect: 8 waits").isTrue();
        assertThat(p.rejected(6)).isSameAs(cause);
        assertThat(p.awaitingRejectedRun(8)).isFalse();
        p.add(6, PartitionProgress.DONE); // reported
        assertThat(p.rejected(7)).isSameAs(cause);
        p.add(7, PartitionProgress.DONE);
        assertThat(p.rejected(8)).as("past the run").isNull();
        p.add(8, ok);
        assertThat(p.advance()).isNull();
        assertThat(p.committable()).isEqualTo(8);
        assertThat(p.rejected(6)).as("the run is forgotten once reported").isNull();
    }

    @Test
    void aRecordAlreadyReportedIsNotReportedAgainAfterARewind() {
        PartitionProgress p = new PartitionProgress();
        CompletableFuture<Void> batch = new CompletableFuture<>();
        p.add(10, batch);
        p.addReported(11, CompletableFuture.completedFuture(null));
        p.add(12, batch); // a later record of the same streamer batch: a slot of its own after the report
        p.committing();
        assertThat(p.rewind()).isEqualTo(10);
        assertThat(p.reportedBefore(10)).isFalse();
        p.add(10, batch);
        assertThat(p.reportedBefore(11)).as("reported before the rewind").isTrue();
        assertThat(p.reportedBefore(11)).as("only once").isFalse();
        batch.complete(null);
        p.add(12, batch);
        assertThat(p.advance()).isNull();
        assertThat(p.committable()).isEqualTo(12);
    }
}
