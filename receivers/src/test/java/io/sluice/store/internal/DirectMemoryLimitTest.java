package io.sluice.store.internal;

import io.sluice.DataRegionFullException;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A region larger than the JVM's direct memory limit fails with a {@link DataRegionFullException}
 * that names the flag to raise, keeps what it stored, and keeps refusing without retrying the JVM.
 * Runs in a child JVM with a small {@code -XX:MaxDirectMemorySize}.
 */
class DirectMemoryLimitTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRegionPastTheDirectMemoryLimitFailsCleanlyAndKeepsItsRows() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Xmx128m", "-XX:MaxDirectMemorySize=96m",
                "-cp", System.getProperty("java.class.path"), FillPastDirectLimit.class.getName())
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(100, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("-XX:MaxDirectMemorySize").contains("all rows intact")
                .contains("20 more puts refused");
    }

    /** The child: fills a 1 GiB region in a JVM allowed 96 MiB of direct memory. */
    static final class FillPastDirectLimit {
        public static void main(String[] args) throws IOException {
            try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 1L << 30))) {
                PartitionStore store = region.createPartition();
                byte[] value = new byte[1000];
                int stored = 0;
                DataRegionFullException full = null;
                while (full == null) {
                    byte[] key = key(stored);
                    try {
                        store.put(key, 0, key.length, value, 0, value.length);
                        stored++;
                    } catch (DataRegionFullException e) {
                        full = e;
                    }
                }
                System.out.println("refused after " + stored + " rows: " + full.getMessage());
                for (int i = 0; i < stored; i++) {
                    byte[] key = key(i);
                    if (store.get(key, 0, key.length) == null) {
                        System.out.println("row " + i + " lost");
                        System.exit(1);
                    }
                }
                System.out.println("all rows intact");
                int refused = 0;
                for (int i = 0; i < 20; i++) {
                    byte[] key = key(stored + i);
                    try {
                        store.put(key, 0, key.length, value, 0, value.length);
                    } catch (DataRegionFullException e) {
                        refused++;
                    }
                }
                System.out.println(refused + " more puts refused");
            }
        }

        private static byte[] key(int i) {
            return ByteBuffer.allocate(5).put((byte) 1).putInt(i).array();
        }
    }
}
