package io.sluice.node.internal;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RecoveredKeysTest {

    private static EntryBatch batch(String prefix, int from, int to) {
        GrowableBuffer out = new GrowableBuffer(256);
        for (int i = from; i < to; i++) {
            // every third entry a removal: a spilled removal must come back as well as a put
            EntryBatch.append(out, (prefix + i).getBytes(StandardCharsets.UTF_8),
                    i % 3 == 0 ? null : ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return new EntryBatch(out.toByteArray(), out.position(), to - from);
    }

    /** Every key the cache gets back, from the heap and from the spill file, as "partition:key". */
    private static List<String> everyKey(RecoveredKeys recovered, int cacheId) {
        RecoveredKeys.CacheKeys keys = recovered.take(cacheId);
        List<String> all = new ArrayList<>();
        for (int p = 0; p < keys.partitions(); p++) {
            for (byte[] k : keys.keys(p)) {
                all.add(p + ":" + new String(k, StandardCharsets.UTF_8));
            }
        }
        recovered.readSpilled(keys, (p, ks) -> ks.forEach(k -> all.add(p + ":" + new String(k, StandardCharsets.UTF_8))));
        return all;
    }

    @Test
    void keysPastTheHeapBoundGoToTheSpillFileAndEveryOneComesBackOnce(@TempDir Path dir) throws IOException {
        Path spill = dir.resolve(RecoveredKeys.SPILL_FILE);
        Files.writeString(spill, "left by an earlier run");
        RecoveredKeys recovered = new RecoveredKeys(200, spill);
        assertThat(spill).as("a spill file of an earlier run is deleted").doesNotExist();
        List<String> expectedA = new ArrayList<>();
        List<String> expectedB = new ArrayList<>();
        for (int b = 0; b < 40; b++) {
            int partition = b % 4;
            recovered.add(1, 4, partition, batch("a", b * 10, b * 10 + 10));
            recovered.add(2, 4, partition, batch("b", b * 10, b * 10 + 10));
            for (int i = b * 10; i < b * 10 + 10; i++) {
                expectedA.add(partition + ":a" + i);
                expectedB.add(partition + ":b" + i);
            }
        }
        recovered.recovered();
        assertThat(spill).as("800 keys do not fit in 200 bytes").exists();
        assertThat(recovered.holds(1)).isTrue();

        List<String> a = everyKey(recovered, 1);
        assertThat(a).containsExactlyInAnyOrderElementsOf(expectedA);
        assertThat(recovered.holds(1)).isFalse();
        assertThat(spill).as("cache 2 has not read its spilled keys yet").exists();
        assertThat(everyKey(recovered, 2)).containsExactlyInAnyOrderElementsOf(expectedB);
        assertThat(spill).as("deleted once every cache read its spilled keys").doesNotExist();
    }

    @Test
    void keysWithinTheBoundStayInTheHeapAndAForgottenCacheReleasesTheSpillFile(@TempDir Path dir) {
        Path spill = dir.resolve(RecoveredKeys.SPILL_FILE);
        RecoveredKeys recovered = new RecoveredKeys(1 << 20, spill);
        recovered.add(1, 2, 1, batch("k", 0, 50));
        recovered.recovered();
        assertThat(spill).doesNotExist();
        assertThat(everyKey(recovered, 1)).hasSize(50).allMatch(k -> k.startsWith("1:"));

        RecoveredKeys small = new RecoveredKeys(0, spill);
        small.add(7, 2, 0, batch("k", 0, 5));
        small.recovered();
        assertThat(spill).exists();
        small.forget(7);
        assertThat(spill).doesNotExist();
    }
}
