package io.sluice.e2e.cluster;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.WriteSyncMode;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27's paused primary: three nodes (session timeout 6 s), a cache with one backup, FULL_SYNC, a client
 * writing. node-2 is frozen with SIGSTOP (a long GC pause, a stopped VM) past its session timeout; meanwhile PUTs for
 * its partitions wait in its socket, sent on a raw connection opened before the pause. Its backups are promoted
 * (the map shows new owners), and the same keys are written with new values through the new owners. Then SIGCONT:
 * node-2 runs on from where it froze, with its queued PUTs. It must answer each with a refusal (NOT_OWNER, or
 * STALE_EPOCH), never ok: it no longer owns those partitions, whatever it believed before the pause. Afterwards every
 * key has the value written through the new owner (nothing overwritten by node-2's stale writes, directly or by
 * replication), and every acknowledged key of the load is there.
 */
@Timeout(420)
class PausedPrimaryIT {

    private static final String VICTIM = "node-2";
    private static final int STALE_KEYS = 8;
    private static final int RATE = 1000;

    @Test
    void aPausedPrimaryAcknowledgesNothingForThePartitionsItLost() throws Exception {
        try (ClusterProcesses cluster = ClusterProcesses.create("paused", Duration.ofSeconds(60),
                BackupKillLoopIT.PARTITIONS)) {
            try {
                cluster.sessionTimeout(BackupKillLoopIT.SESSION).startAll("node-1", VICTIM, "node-3");
                try (Sluice writer = cluster.client(); Sluice reader = cluster.client()) {
                    writer.getOrCreateCache(CacheConfig.named("paused").withBackups(1)
                            .withWriteSync(WriteSyncMode.FULL_SYNC));
                    AckedWrites writes = AckedWrites.start(writer, "paused", RATE, RATE * 600);
                    ClusterMap before = ReplicaMaps.awaitReplicated(cluster, 1, Duration.ofSeconds(120));
                    List<Long> keys = keysIn(ReplicaMaps.primaryOf(before, VICTIM));
                    writes.awaitProgress(RATE, Duration.ofSeconds(60));

                    try (RawNodeConnection raw = RawNodeConnection.open(cluster.node(VICTIM).address())) {
                        // The raw connection is understood: a PUT for one of its partitions is ok before the pause.
                        raw.sendPut("paused", keys.get(0), "before the pause");
                        assertThat(raw.read()).as("node-2's answer to a PUT before the pause")
                                .extracting(RawNodeConnection.Answer::ok).isEqualTo(true);

                        long pausedAt = System.nanoTime();
                        cluster.pause(VICTIM);
                        for (long k : keys) {
                            raw.sendPut("paused", k, "stale " + k);
                        }
                        ReplicaMaps.awaitFailedOver(cluster, "node-1", VICTIM, Duration.ofSeconds(60));
                        double promoted = (System.nanoTime() - pausedAt) / 1e9;
                        Cache<Long, String> cache = reader.cache("paused");
                        for (long k : keys) {
                            cache.put(k, "fresh " + k); // through the new owner, acknowledged
                        }
                        cluster.resume(VICTIM);
                        double resumed = (System.nanoTime() - pausedAt) / 1e9;

                        List<RawNodeConnection.Answer> answers = new ArrayList<>();
                        for (int i = 0; i < keys.size(); i++) {
                            answers.add(raw.read());
                        }
                        System.out.printf("PausedPrimaryIT: node-2 paused; its partitions promoted after %.1f s, "
                                + "resumed after %.1f s; its answers to the %d PUTs queued meanwhile: %s%n",
                                promoted, resumed, keys.size(), answers);
                        for (RawNodeConnection.Answer a : answers) {
                            assertThat(a.ok()).as("node-2 acknowledged a PUT for a partition it lost: %s", answers)
                                    .isFalse();
                            assertThat(a.errorKind()).as("node-2's refusal: %s", a)
                                    .isIn(ErrorKind.NOT_OWNER.code, 12 /* STALE_EPOCH */);
                        }
                    }

                    ReplicaMaps.awaitReplicated(cluster, 1, Duration.ofSeconds(120)); // node-2 back, in sync
                    writes.awaitProgress(RATE, Duration.ofSeconds(90));
                    Cache<Long, String> cache = reader.cache("paused");
                    for (long k : keys) {
                        assertThat(cache.get(k)).as("key %d, written through the new owner", k)
                                .isEqualTo("fresh " + k);
                    }
                    writes.stop();
                    assertThat(writes.ended()).as("how the load's streamer ended").isNull();
                    assertThat(writes.failed()).as("entries the cluster failed (%s)", writes.failures()).isZero();
                    AckedWrites.Check check = writes.verify(reader, Set.of());
                    assertThat(check.clean()).as("the load's acknowledged keys: %s", check).isTrue();
                    System.out.println("PausedPrimaryIT: " + writes + "; " + check);
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }

    /** One negative key (apart from the load's) in each of the first partitions given. */
    private static List<Long> keysIn(Set<Integer> partitions) {
        assertThat(partitions).as("node-2's partitions").hasSizeGreaterThanOrEqualTo(STALE_KEYS);
        List<Long> keys = new ArrayList<>();
        Set<Integer> wanted = new HashSet<>(new ArrayList<>(partitions).subList(0, STALE_KEYS));
        for (long k = -1; keys.size() < STALE_KEYS; k--) {
            if (wanted.remove(AckedWrites.partition(k, BackupKillLoopIT.PARTITIONS))) {
                keys.add(k);
            }
        }
        return keys;
    }
}
