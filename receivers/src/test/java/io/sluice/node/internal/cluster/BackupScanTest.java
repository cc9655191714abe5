package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.WriteSyncMode;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.client.internal.ClientSettings;
import io.sluice.client.internal.PeerConnection;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A backup in sync answers SCAN of a replicated cache for the partitions it backs, with its primary's entries; a
 * cache without backups is not scanned there (NOT_OWNER). Real nodes in this JVM, the cluster in memory.
 */
@Timeout(60)
class BackupScanTest {

    private static final int PARTITIONS = 4;
    private static final Duration AWAIT = Duration.ofSeconds(20);

    @Test
    void aBackupInSyncAnswersScansOfAReplicatedCacheOnly() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            TwoNodes.Node b = c.start("b");
            c.cluster.assign(a.id());
            a.cluster().createCache(CacheConfig.named("copied").withBackups(1).withWriteSync(WriteSyncMode.FULL_SYNC)
                    .withReadFromBackup(true), true);
            a.cluster().createCache(CacheConfig.named("single"), true);
            for (int p = 0; p < PARTITIONS; p++) {
                c.cluster.addBackup(p, b.id());
            }
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                await().atMost(AWAIT).until(() -> a.cluster().joinedParts().primary().inSync(partition)
                        .contains(b.id()));
            }
            Map<Long, String> written = new TreeMap<>();
            try (Sluice client = SluiceClient.connect(ClientConfig.builder()
                    .addresses("127.0.0.1:" + a.server().address().getPort()).requestTimeout(AWAIT).build())) {
                for (long k = 0; k < 400; k++) {
                    written.put(k, "v" + k);
                }
                client.<Long, String>cache("copied").putAll(written); // FULL_SYNC: on b once acknowledged
                client.<Long, String>cache("single").putAll(written);
                Map<Long, String> scanned = new TreeMap<>();
                client.<Long, String>cache("copied").scan().forEach(e -> scanned.put(e.getKey(), e.getValue()));
                assertThat(scanned).isEqualTo(written);
            }

            try (PeerConnection toB = new PeerConnection(settings(b))) {
                Map<Long, String> fromB = new TreeMap<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    for (byte[][] entry : scan(toB, "copied", p)) {
                        fromB.put((Long) decode(entry[0]), (String) decode(entry[1]));
                    }
                }
                assertThat(fromB).as("every partition scanned on its backup").isEqualTo(written);
                assertThatThrownBy(() -> scan(toB, "single", 0)).isInstanceOf(NotOwnerException.class);
            }
        }
    }

    /** One SCAN page of a partition (4,096 entries at most: all of these), as key and value bytes. */
    private static List<byte[][]> scan(PeerConnection to, String cache, int partition) {
        return to.await(to.send(Op.SCAN, out -> {
            Wire.writeString(out, cache);
            out.writeInt(partition);
            out.writeByte(0);
            out.writeInt(4096);
        }, body -> {
            int n = Wire.readCount(body, 8, "entry");
            List<byte[][]> entries = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                entries.add(new byte[][]{Wire.readBlob(body, "key"), Wire.readBlob(body, "value")});
            }
            return entries;
        }));
    }

    private static Object decode(byte[] bytes) {
        return new BinaryContext().decode(bytes, 0, bytes.length, false);
    }

    private static ClientSettings settings(TwoNodes.Node node) {
        return new ClientSettings(List.of("127.0.0.1:" + node.server().address().getPort()), "test", null,
                Duration.ofSeconds(5), Duration.ofSeconds(10), Wire.DEFAULT_MAX_FRAME,
                false, null, 1, Duration.ofMillis(100), 100, Duration.ofSeconds(1));
    }
}
