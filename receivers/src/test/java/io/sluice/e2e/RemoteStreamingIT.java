package io.sluice.e2e;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.server.internal.NodeProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;

/**
 * The streaming suite against a node process started from {@code sluice-node.jar}, reached through
 * {@link SluiceClient} over loopback TCP: one process for the class, a fresh cache and client per test.
 */
class RemoteStreamingIT extends StreamingContract {

    private static NodeProcess process;
    private static StallSwitch processStall;

    @BeforeAll
    static void startNode() {
        // The node process reads the stall port once, at start: it gets a switch of its own.
        processStall = new StallSwitch();
        process = NodeProcesses.start("""
                {"dataRegionInitialSize": "16m", "dataRegionMaxSize": "1g", "applyThreads": 2,
                 "receivers": {"failing": "%s", "stalling": "%s", "upper": "%s"}}
                """.formatted(FAILING, STALLING, UPPER),
                List.of("-D" + TestReceivers.STALL_PORT + "=" + processStall.port()));
    }

    @AfterAll
    static void stopNode() {
        processStall.close();
        if (process != null) {
            process.stop();
        }
    }

    @Override
    protected Sluice open(String cacheName, long maxRegion) {
        Sluice client = SluiceClient.connect(ClientConfig.addresses(process.address()));
        client.createCache(CacheConfig.named(cacheName));
        return client;
    }

    @Override
    protected StallSwitch stallSwitch() {
        return processStall;
    }
}
