package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheStore;
import io.sluice.CacheStoreConfig;
import io.sluice.CacheStoreException;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cache store's failure reaches a remote caller as the embedded one: a {@link CacheStoreException} naming
 * the store's operation and the keys (error kind 10 on the wire; before, a plain SluiceException).
 */
class RemoteCacheStoreErrorsTest {

    /** A store whose database is down. */
    public static final class DownStore implements CacheStore<Object, Object> {
        @Override
        public Object load(Object key) {
            throw new IllegalStateException("database down");
        }

        @Override
        public void write(Object key, Object value) {
            throw new IllegalStateException("database down");
        }

        @Override
        public void delete(Object key) {
            throw new IllegalStateException("database down");
        }
    }

    private NodeEngine node;
    private SluiceServer server;
    private Sluice remote;

    @BeforeEach
    void start() {
        node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(2)
                .store("down", DownStore::new).build());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        remote = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()));
    }

    @AfterEach
    void stop() {
        if (remote != null) {
            remote.close();
        }
        if (server != null) {
            server.closeConnections();
        }
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aFailingStoreThrowsCacheStoreExceptionEmbeddedAndRemote() {
        node.createCache(CacheConfig.named("c").withPartitions(4)
                .withStore(CacheStoreConfig.writeThrough("down").withReadThrough(true)));
        for (Sluice sluice : List.of(node, remote)) {
            Cache<Long, String> cache = sluice.cache("c");
            String who = sluice == node ? "embedded" : "remote";

            assertThatThrownBy(() -> cache.put(1L, "one")).as(who).isInstanceOf(CacheStoreException.class)
                    .hasMessageContaining("database down").hasMessageContaining("[1]");
            assertThatThrownBy(() -> cache.putAll(Map.of(2L, "two"))).as(who).isInstanceOf(CacheStoreException.class);
            assertThatThrownBy(() -> cache.remove(3L)).as(who).isInstanceOf(CacheStoreException.class);
            assertThatThrownBy(() -> cache.get(4L)).as(who).isInstanceOf(CacheStoreException.class)
                    .hasMessageContaining("load");
            assertThatThrownBy(() -> cache.getAll(Set.of(5L))).as(who).isInstanceOf(CacheStoreException.class);
            assertThat(cache.size()).as(who + ": memory unchanged").isZero();
        }
    }
}
