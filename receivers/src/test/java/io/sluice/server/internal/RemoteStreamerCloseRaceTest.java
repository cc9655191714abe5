package io.sluice.server.internal;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A remote client's streamers and its close(): a streamer opened while the client closes is either refused with
 * a clear exception or closed by close(), never left open (the embedded node has guarded this since its start;
 * both now share {@code StreamerRegistry}).
 */
@Timeout(120)
class RemoteStreamerCloseRaceTest {

    @Test
    void aStreamerOpenedWhileTheClientClosesIsRefusedOrClosed() throws Exception {
        NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(2).build());
        SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        ClientConfig config = ClientConfig.addresses("127.0.0.1:" + server.address().getPort());
        int refused = 0;
        int closedByClose = 0;
        try {
            for (int round = 0; round < 100; round++) {
                Sluice client = SluiceClient.connect(config);
                client.getOrCreateCache(CacheConfig.named("race").withPartitions(8));
                List<DataStreamer<Long, Long>> opened = new ArrayList<>();
                AtomicReference<RuntimeException> refusal = new AtomicReference<>();
                // close() starts once a streamer is open, while the opener keeps opening more.
                CountDownLatch firstOpened = new CountDownLatch(1);
                CountDownLatch openerDone = new CountDownLatch(1);
                Thread opener = new Thread(() -> {
                    try {
                        while (true) {
                            opened.add(client.dataStreamer("race"));
                            firstOpened.countDown();
                        }
                    } catch (RuntimeException e) {
                        refusal.set(e);
                    } finally {
                        firstOpened.countDown();
                        openerDone.countDown();
                    }
                }, "streamer-opener");
                opener.start();
                firstOpened.await();
                client.close();
                openerDone.await();
                opener.join();

                assertThat(refusal.get()).as("the opener stops only when refused").isInstanceOf(IllegalStateException.class);
                assertThat(refusal.get().getMessage()).containsAnyOf("is closing; no new streamers", "is closed");
                for (DataStreamer<Long, Long> s : opened) {
                    assertThatThrownBy(() -> s.addData(1L, 1L)).as("a streamer left open by close()")
                            .isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
                }
                closedByClose += opened.size();
                refused++;
            }
        } finally {
            server.closeConnections();
            node.close();
        }
        assertThat(refused).isEqualTo(100);
        assertThat(closedByClose).as("close() ran while streamers were open").isGreaterThanOrEqualTo(100);
    }
}
