package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.WriteSyncMode;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27's kill loop: three nodes (processes, session timeout 6 s, rebalance delay 60 s, 64 partitions), one
 * cache with one backup; a client writes unique keys (streamer, and one in ten by putAsync) at a steady rate while,
 * round after round, a node picked by a seeded random is killed with kill -9 and started again. Each round waits
 * for the cluster to be back in sync (every partition with an owner and a backup), kills, waits for the backups to
 * be promoted, and then reads back every key acknowledged so far.
 * <ul>
 *   <li>FULL_SYNC: every acknowledged key is there with its value after every kill.</li>
 *   <li>PRIMARY_SYNC: an acknowledged key may be lost only if the killed node was its partition's primary and it
 *   was acknowledged in the round of the kill (after the cluster was last back in sync): the primary answered
 *   before its backup applied it. No key ever reads another value. The losses are counted and printed.</li>
 * </ul>
 * A round takes 15-20 s on two cores (6.5 s of it the session timeout), so CI runs 6 rounds with FULL_SYNC and 3
 * with PRIMARY_SYNC (about 3 minutes); {@code -Dsluice.killloop.rounds=20} runs the 20 in each mode,
 * {@code -Dsluice.killloop.rounds=100} its long run; {@code -Dsluice.killloop.seed=N} replays a run (the seed is
 * printed), {@code -Dsluice.killloop.rate=N} sets the entries written a second (500 by default).
 */
@Timeout(7200) // every wait of a round is bounded; this caps a 100-round run of both modes
class BackupKillLoopIT {

    static final int PARTITIONS = 64;
    static final Duration SESSION = Duration.ofSeconds(6);
    private static final Duration DELAY = Duration.ofSeconds(60);
    private static final Duration BACK_IN_SYNC = Duration.ofSeconds(120);
    private static final Duration FAILOVER = Duration.ofSeconds(60);
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @Test
    void fullSyncLosesNothingAcknowledgedWhileNodesAreKilled() throws Exception {
        Result result = killLoop("killloop-full", WriteSyncMode.FULL_SYNC,
                Integer.getInteger("sluice.killloop.rounds", 6));
        assertThat(result.lost).as("acknowledged keys lost with FULL_SYNC").isZero();
    }

    @Test
    void primarySyncLosesOnlyWhatTheKilledPrimaryAcknowledgedLast() throws Exception {
        Result result = killLoop("killloop-primary", WriteSyncMode.PRIMARY_SYNC,
                Integer.getInteger("sluice.killloop.rounds", 3));
        System.out.printf("BackupKillLoopIT PRIMARY_SYNC: %d acknowledged keys lost over %d rounds (%d acknowledged)%n",
                result.lost, result.rounds, result.acknowledged);
    }

    /**
     * Reads back every acknowledged key through a new client of the running nodes (a client whose map still names the
     * killed node would spend seconds on its connection retries first).
     */
    private static AckedWrites.Check verify(ClusterProcesses cluster, AckedWrites writes, Set<Long> excused) {
        try (Sluice reader = cluster.client()) {
            return writes.verify(reader, excused);
        }
    }

    private record Result(int rounds, long acknowledged, long lost) {
    }

    private static Result killLoop(String name, WriteSyncMode mode, int rounds) throws Exception {
        long seed = Long.getLong("sluice.killloop.seed", System.nanoTime());
        int rate = Integer.getInteger("sluice.killloop.rate", 500);
        System.out.printf("BackupKillLoopIT %s: %d rounds, seed %d (-Dsluice.killloop.seed=%d replays it), %d entries/s%n",
                mode, rounds, seed, seed, rate);
        Random random = new Random(seed);
        long begun = System.nanoTime();
        try (ClusterProcesses cluster = ClusterProcesses.create(name, DELAY, PARTITIONS)) {
            try {
                cluster.sessionTimeout(SESSION).startAll(NODES.toArray(String[]::new));
                try (Sluice writer = cluster.client()) {
                    writer.getOrCreateCache(CacheConfig.named("acked").withBackups(1).withWriteSync(mode));
                    Set<Long> lost = new HashSet<>();
                    AckedWrites writes = AckedWrites.start(writer, "acked", rate, rate * (rounds + 2) * 60);
                    int windowStart = 0;
                    for (int round = 1; round <= rounds; round++) {
                        ClusterMap before = ReplicaMaps.awaitReplicated(cluster, 1, BACK_IN_SYNC);
                        writes.awaitProgress(rate / 4, Duration.ofSeconds(60)); // writes to every node's partitions
                        String victim = NODES.get(random.nextInt(NODES.size()));
                        String survivor = NODES.get((NODES.indexOf(victim) + 1) % NODES.size());
                        int killedAt = writes.nowMillis();
                        cluster.kill(victim);
                        ReplicaMaps.awaitFailedOver(cluster, survivor, victim, FAILOVER);
                        int failedOverAt = writes.nowMillis();
                        AckedWrites.Check check = verify(cluster, writes, lost);
                        Set<Integer> itsPartitions = ReplicaMaps.primaryOf(before, victim);
                        if (mode == WriteSyncMode.FULL_SYNC) {
                            assertThat(check.missing()).as("acknowledged keys missing after kill %d of %s: %s", round,
                                    victim, check).isEmpty();
                        }
                        for (long k : check.missing()) { // PRIMARY_SYNC
                            assertThat(itsPartitions).as("the killed %s's partitions (key %d lost)", victim, k)
                                    .contains(AckedWrites.partition(k, PARTITIONS));
                            assertThat(writes.acknowledgedAt(k)).as("when lost key %d was acknowledged (ms; the"
                                    + " round began at %d ms)", k, windowStart).isGreaterThanOrEqualTo(windowStart);
                        }
                        assertThat(check.wrong()).as("keys with another value after kill %d: %s", round, check)
                                .isEmpty();
                        lost.addAll(check.missing());
                        System.out.printf("round %d: killed %s at %.1f s, failed over in %.1f s; %s; lost %d%s%n",
                                round, victim, killedAt / 1e3, (failedOverAt - killedAt) / 1e3, writes,
                                check.missing().size(), check.missing().isEmpty() ? ""
                                        : " acknowledged " + (killedAt - writes.acknowledgedAt(check.missing().get(0)))
                                        + " ms before the kill (the first)");
                        windowStart = writes.nowMillis();
                        cluster.start(victim);
                        int restartedAt = writes.nowMillis();
                        writes.awaitProgress(rate / 2, Duration.ofSeconds(90)); // the load goes on
                        System.out.printf("round %d: verified in %.1f s, %s restarted in %.1f s, the load went on"
                                        + " after %.1f s%n", round, (windowStart - failedOverAt) / 1e3, victim,
                                (restartedAt - windowStart) / 1e3, (writes.nowMillis() - restartedAt) / 1e3);
                    }
                    ReplicaMaps.awaitReplicated(cluster, 1, BACK_IN_SYNC);
                    writes.close();
                    assertThat(writes.ended()).as("how the load's streamer ended").isNull();
                    assertThat(writes.failed()).as("entries the cluster failed (%s)", writes.failures()).isZero();
                    AckedWrites.Check last = verify(cluster, writes, lost);
                    assertThat(last.clean()).as("at the end, with every node back: %s", last).isTrue();
                    System.out.printf("BackupKillLoopIT %s: %d rounds in %.0f s, %s, %d lost (seed %d)%n", mode,
                            rounds, (System.nanoTime() - begun) / 1e9, writes, lost.size(), seed);
                    return new Result(rounds, writes.acknowledged(), lost.size());
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println("seed " + seed);
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }
}
