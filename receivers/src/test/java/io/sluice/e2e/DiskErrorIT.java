package io.sluice.e2e;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.server.internal.NodeProcess;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A write error from the kernel, without root: the node process runs under {@code prlimit --fsize}, so once
 * its log segment reaches the limit the kernel refuses the write ({@code EFBIG}, "File too large"; the JVM
 * ignores {@code SIGXFSZ}). The limit also covers the page memory's chunk files, hence 80 MiB, and the log is
 * {@code LOG_ONLY} so that the load reaches it in seconds. That is a real failed {@code write(2)}, as a full disk gives {@code ENOSPC}; the
 * node's code path is the same (an {@code IOException} from the log's channel). Batches then fail with the
 * cause, the node stays up and readable, and a restart (without the limit) has every acknowledged entry.
 */
@Timeout(180)
class DiskErrorIT {

    /** Above the page memory's 64 MiB chunk files (in /dev/shm, limited too), below the 1 GiB log segment. */
    private static final long FILE_LIMIT = 80L << 20;

    @Test
    void aFailedLogWriteFailsBatchesWithTheCauseAndLosesNothingAcknowledged() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "disk-error-");
        String config = """
                {"dataRegionInitialSize": "16m", "dataRegionMaxSize": "512m", "applyThreads": 2,
                 "caches": [{"name": "orders", "partitions": 16}],
                 "persistence": {"directory": "%s", "walMode": "LOG_ONLY", "walSegmentSize": "1g",
                                 "checkpointIntervalMillis": 3600000, "checkOnRecovery": true}}
                """.formatted(dir.toString().replace("\\", "\\\\"));
        Map<Long, String> acknowledged = new ConcurrentHashMap<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        NodeProcess node = NodeProcesses.start(config, List.of(), List.of("prlimit", "--fsize=" + FILE_LIMIT, "--"));
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses(node.address()))) {
            try (DataStreamer<Long, String> streamer = client.dataStreamer("orders",
                    StreamerOptions.builder().perPartitionBufferSize(128).build())) {
                for (long key = 0; failure.get() == null && key < 5_000_000; key++) {
                    long k = key;
                    String value = "v" + k + "-".repeat(1000); // big rows: the log reaches the limit in ~80,000 entries
                    streamer.addData(k, value).whenComplete((ok, error) -> {
                        if (error == null) {
                            acknowledged.put(k, value);
                        } else {
                            failure.compareAndSet(null, error);
                        }
                    });
                }
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> failure.get() != null);
                streamer.close(true);
            } catch (RuntimeException closing) {
                // close reports the failed batches too
            }
            assertThat(chain(failure.get())).contains("File too large");
            assertThat(acknowledged).isNotEmpty();

            // Up and readable: every acknowledged entry can be read; writes fail with the cause.
            assertThat(node.isAlive()).isTrue();
            Cache<Long, String> orders = client.cache("orders");
            Map<Long, String> stored = new HashMap<>();
            orders.scan().forEach(e -> stored.put(e.getKey(), e.getValue()));
            assertThat(stored).containsAllEntriesOf(acknowledged);
            assertThatThrownBy(() -> orders.put(-1L, "after the failure"))
                    .satisfies(e -> assertThat(chain(e)).contains("File too large"));
        } finally {
            node.stop();
        }

        NodeProcess restarted = NodeProcesses.start(config, List.of());
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses(restarted.address()))) {
            Map<Long, String> stored = new HashMap<>();
            client.<Long, String>cache("orders").scan().forEach(e -> stored.put(e.getKey(), e.getValue()));
            assertThat(stored).as("every acknowledged entry after the restart").containsAllEntriesOf(acknowledged);
            System.out.println("DiskErrorIT: " + acknowledged.size() + " acknowledged before the write error, all present"
                    + " after the restart (" + stored.size() + " stored)");
        } finally {
            restarted.stop();
        }
    }

    private static String chain(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c).append(" <- ");
        }
        return s.toString();
    }
}
