package io.sluice.e2e;

import io.sluice.Cache;
import io.sluice.StreamReceiver;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * Custom receivers of the streaming suite, by class name so that a node process can load them from
 * its class path as well as an embedded node: a receiver that rejects every batch, one that stores
 * values upper-cased, and one that stalls until the test releases it.
 */
public final class TestReceivers {

    /** The system property naming the port a stalling receiver connects to (the test's release switch). */
    public static final String STALL_PORT = "sluice.test.stallPort";

    private TestReceivers() {
    }

    /** Rejects every batch. */
    public static final class Failing implements StreamReceiver<Object, Object> {
        @Override
        public void receive(Cache<Object, Object> cache, Collection<Map.Entry<Object, Object>> entries) {
            throw new IllegalStateException("rejected by the receiver");
        }
    }

    /** Stores each value upper-cased with {@code cache.put}. */
    public static final class UpperCase implements StreamReceiver<Object, Object> {
        @Override
        public void receive(Cache<Object, Object> cache, Collection<Map.Entry<Object, Object>> entries) {
            for (Map.Entry<Object, Object> e : entries) {
                cache.put(e.getKey(), ((String) e.getValue()).toUpperCase(Locale.ROOT));
            }
        }
    }

    /**
     * Stalls its apply thread until the test lets go: it connects to the test's port, names its cache
     * and blocks reading
     * until the test closes the connection (a switch that works across processes, without polling).
     * Once the test stopped listening, batches pass at once.
     */
    public static final class Stalling implements StreamReceiver<Object, Object> {
        @Override
        public void receive(Cache<Object, Object> cache, Collection<Map.Entry<Object, Object>> entries) {
            Integer port = Integer.getInteger(STALL_PORT);
            if (port == null) {
                throw new IllegalStateException("no " + STALL_PORT + " system property: nothing to stall on");
            }
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port); InputStream in = s.getInputStream()) {
                s.getOutputStream().write((cache.name() + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                s.getOutputStream().flush();
                while (in.read() >= 0) {
                    // the test writes nothing; it releases by closing
                }
            } catch (IOException e) {
                // released (or never stalled): the batch goes through, storing nothing
            }
        }
    }
}
