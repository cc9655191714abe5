package io.sluice.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The test's side of {@link TestReceivers.Stalling}: a loopback port whose connections (each one a
 * stalled batch, which first sends its cache's name) are held open while the switch is armed for that
 * cache. {@link #release()} closes them and lets every later batch pass at once until the switch is
 * armed again, so that no batch stays stalled after its test. Batches of other caches (an earlier
 * test's, still queued on a shared node when the next test arms the switch) pass at once.
 */
final class StallSwitch implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> stalled = new CopyOnWriteArrayList<>();
    /** The cache whose batches stall, or null: none stall. */
    private volatile String armedCache;

    StallSwitch() {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::accept, "stall-switch");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                String cache = readCacheName(s);
                stalled.add(s); // before the check: a release() from now on closes it
                if (cache == null || !cache.equals(armedCache)) {
                    stalled.remove(s);
                    closeQuietly(s);
                }
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** The first line the stalled batch sends, or null if it sends none within a few seconds. */
    private static String readCacheName(Socket s) {
        try {
            s.setSoTimeout(5_000);
            java.io.InputStream in = s.getInputStream();
            StringBuilder name = new StringBuilder();
            for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
                name.append((char) b);
            }
            return name.toString();
        } catch (IOException e) {
            return null;
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** Batches of this cache stall from now on (those of any other cache pass). */
    void arm(String cacheName) {
        armedCache = cacheName;
    }

    /** Lets every stalled batch go, and every later one pass at once until {@link #arm()}. Idempotent. */
    void release() {
        armedCache = null;
        closeAll();
    }

    private void closeAll() {
        for (Socket s : stalled) {
            stalled.remove(s);
            closeQuietly(s);
        }
    }

    /** Releases everything and stops listening (later batches fail to connect and pass at once). */
    @Override
    public void close() {
        release();
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
