package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.pagestore.internal.page.ChunkAllocator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Page memory is bounded by the region's size, not by the JVM's heap or direct-memory limit, and
 * goes back to the system when the region closes. Each case runs in a child JVM with a small heap
 * and a small {@code -XX:MaxDirectMemorySize}.
 */
class DirectMemoryLimitTest {

    private static final Path SHM = Path.of("/dev/shm");

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aRegionLargerThanHeapAndDirectLimitFillsToItsOwnSize() throws Exception {
        assumeTrue(Files.isWritable(SHM), "no memory file system here: the direct fallback case covers it");
        String output = child(List.of("-Xmx64m", "-XX:MaxDirectMemorySize=32m"), "fill", "256");
        assertThat(output).contains("memory: files mapped from /dev/shm")
                .contains("data region is full").doesNotContain("refused more memory")
                .contains("all rows intact").contains("20 more puts refused");
        long stored = Long.parseLong(output.replaceAll("(?s).*refused after (\\d+) rows.*", "$1"));
        assertThat(stored * 1000).as("bytes stored, past the 64 MiB heap and 32 MiB direct limit")
                .isGreaterThan(160L << 20);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void directBuffersPastTheDirectLimitFailCleanlyAndKeepTheirRows() throws Exception {
        String output = child(List.of("-Xmx128m", "-XX:MaxDirectMemorySize=96m", "-D" + ChunkAllocator.PROPERTY + "=direct"),
                "fill", "1024");
        assertThat(output).contains("memory: direct buffers").contains("refused more memory")
                .contains("-XX:MaxDirectMemorySize").contains("all rows intact").contains("20 more puts refused");
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void closingARegionGivesItsMemoryBackAtOnce() throws Exception {
        assumeTrue(Files.isWritable(SHM) && Files.isReadable(Path.of("/proc/self/status")));
        // 8 regions of 128 MiB opened, filled and closed one after another: without freeing on close,
        // the mapped memory would pile up to 1 GiB (no heap pressure runs the collector here).
        String output = child(List.of("-Xmx64m"), "cycle", "8");
        assertThat(output).contains("cycles done");
        for (String line : output.split("\n")) {
            if (line.startsWith("after close")) {
                long kib = Long.parseLong(line.replaceAll("\\D+", " ").trim().split(" ")[1]);
                assertThat(kib).as(line).isLessThan(64 * 1024);
            }
        }
    }

    private static String child(List<String> jvmFlags, String... args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString()));
        command.addAll(jvmFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Child.class.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(10, TimeUnit.SECONDS)).as(output).isTrue(); // its output ended: it is exiting
        assertThat(child.exitValue()).as(output).isZero();
        return output;
    }

    static final class Child {
        public static void main(String[] args) throws IOException {
            if (args[0].equals("fill")) {
                fill(Long.parseLong(args[1]) << 20);
            } else {
                cycle(Integer.parseInt(args[1]));
            }
        }

        /** Fills a region of that size, then checks every row and that more puts are refused. */
        static void fill(long regionBytes) {
            try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, regionBytes))) {
                System.out.println("memory: " + region.describeMemory());
                PartitionStore store = region.createPartition();
                int stored = putUntilFull(store);
                for (int i = 0; i < stored; i++) {
                    byte[] key = key(i);
                    if (store.get(key, 0, key.length) == null) {
                        System.out.println("row " + i + " lost");
                        System.exit(1);
                    }
                }
                System.out.println("all rows intact");
                int refused = 0;
                byte[] value = new byte[1000];
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

        private static int putUntilFull(PartitionStore store) {
            byte[] value = new byte[1000];
            int stored = 0;
            while (true) {
                byte[] key = key(stored);
                try {
                    store.put(key, 0, key.length, value, 0, value.length);
                    stored++;
                } catch (DataRegionFullException e) {
                    System.out.println("refused after " + stored + " rows: " + e.getMessage());
                    return stored;
                }
            }
        }

        /** Opens, fills and closes regions one after another, printing the process's mapped shared memory. */
        static void cycle(int times) throws IOException {
            for (int i = 0; i < times; i++) {
                try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 128L << 20))) {
                    putUntilFull(region.createPartition());
                    System.out.println("filled: " + shmemKib() + " KiB");
                }
                System.out.println("after close " + i + ": " + shmemKib() + " KiB");
            }
            System.out.println("cycles done");
        }

        private static long shmemKib() throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("RssShmem:")) {
                    return Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
            throw new IllegalStateException("no RssShmem in /proc/self/status");
        }

        private static byte[] key(int i) {
            return ByteBuffer.allocate(5).put((byte) 1).putInt(i).array();
        }
    }
}
