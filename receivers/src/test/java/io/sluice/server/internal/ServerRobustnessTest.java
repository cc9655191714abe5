package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Receivers;
import io.sluice.Sluice;
import io.sluice.SluiceException;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.StreamCodec;
import io.sluice.protocol.internal.Wire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The node trusts nothing it receives: handshakes of another version or with a wrong token are
 * refused, oversized or malformed frames cost their own connection only, a malformed entry fails its
 * batch (naming it) and nothing else, and thousands of random and mutated frames leave the node up and
 * a well-behaved client loading at the same time with every entry verified.
 */
@Timeout(180)
class ServerRobustnessTest {

    private NodeEngine node;
    private SluiceServer server;

    private void start(ServerConfig config) {
        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(16L << 20).dataRegionMaxSize(512L << 20)
                .applyThreads(2).build());
        server = SluiceServer.start(node, config.withPort(0));
    }

    private String address() {
        return "127.0.0.1:" + server.address().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.closeConnections();
        }
        if (node != null) {
            node.close();
        }
    }

    /** A raw connection speaking bytes. */
    private final class Raw implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        final DataInputStream in;

        Raw() throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort());
            socket.setSoTimeout(10_000);
            out = socket.getOutputStream();
            in = new DataInputStream(socket.getInputStream());
        }

        void send(ByteBuf frame) throws IOException {
            byte[] b = new byte[frame.readableBytes()];
            frame.readBytes(b);
            frame.release();
            out.write(b);
            out.flush();
        }

        /** The next frame's payload, or null if the node closed the connection. */
        ByteBuf read() throws IOException {
            int length;
            try {
                length = in.readInt();
            } catch (EOFException e) {
                return null;
            }
            byte[] payload = new byte[length];
            in.readFully(payload);
            return io.netty.buffer.Unpooled.wrappedBuffer(payload);
        }

        boolean closedByNode() throws IOException {
            try {
                return socket.getInputStream().read() < 0;
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void aHandshakeOfAnotherVersionIsRefusedNamingBothVersions() throws Exception {
        start(ServerConfig.defaults());
        try (Raw raw = new Raw()) {
            raw.send(Frames.handshake(UnpooledByteBufAllocator.DEFAULT, 9, "old-client", ""));

            Frames.HandshakeReply reply = Frames.readHandshakeReply(raw.read());

            assertThat(reply.status()).isEqualTo(Wire.HANDSHAKE_VERSION_MISMATCH);
            assertThat(reply.message()).contains("version 9").contains("version " + Wire.VERSION);
            assertThat(raw.closedByNode()).isTrue();
        }
    }

    @Test
    void aWrongTokenIsRefusedAndTheRightOneServed() {
        start(ServerConfig.defaults().withToken("s3cret"));

        assertThatThrownBy(() -> SluiceClient.connect(ClientConfig.builder().addresses(address()).token("guess").build()))
                .isInstanceOf(SluiceException.class).hasMessageContaining("did not present this node's token");
        assertThatThrownBy(() -> SluiceClient.connect(ClientConfig.addresses(address())))
                .isInstanceOf(SluiceException.class).hasMessageContaining("token");
        try (Sluice client = SluiceClient.connect(ClientConfig.builder().addresses(address()).token("s3cret").build())) {
            client.createCache(CacheConfig.named("c").withPartitions(4)).put(1L, "one");
            assertThat(client.<Long, String>cache("c").get(1L)).isEqualTo("one");
        }
    }

    @Test
    void aHandshakeWithBytesAfterItsTokenIsRefusedAsMalformed() throws Exception {
        start(ServerConfig.defaults().withToken("s3cret"));
        try (Raw raw = new Raw()) {
            ByteBuf frame = Frames.handshake(UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "app", "s3cret");
            frame.writeBytes(new byte[] {1, 2, 3});
            frame.setInt(0, frame.readableBytes() - Wire.LENGTH_FIELD);
            raw.send(frame);

            Frames.HandshakeReply reply = Frames.readHandshakeReply(raw.read());

            assertThat(reply.status()).isEqualTo(Wire.HANDSHAKE_MALFORMED);
            assertThat(reply.message()).contains("3 bytes after its token").doesNotContain("s3cret");
            assertThat(raw.closedByNode()).isTrue();
        }
    }

    @Test
    void aConnectionOverMaxConnectionsIsToldTheLimitAndConnectRetriesUntilOneIsFree() throws Exception {
        start(new ServerConfig("127.0.0.1", 0, 64 * 1024, 1, java.time.Duration.ZERO, null, 1L << 20, null));
        ClientConfig config = ClientConfig.builder().addresses(address()).retryAttempts(3)
                .retryInitialBackoff(java.time.Duration.ofMillis(10)).build();
        try (Raw first = new Raw()) {
            first.send(Frames.handshake(UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "first", ""));
            assertThat(Frames.readHandshakeReply(first.read()).status()).isEqualTo(Wire.HANDSHAKE_OK);

            try (Raw second = new Raw()) {
                Frames.HandshakeReply busy = Frames.readHandshakeReply(second.read());
                assertThat(busy.status()).isEqualTo(Wire.HANDSHAKE_BUSY);
                assertThat(busy.message()).isEqualTo("it serves at most 1 connections (maxConnections) and all are in use");
                assertThat(second.closedByNode()).isTrue();
            }
            assertThatThrownBy(() -> SluiceClient.connect(config))
                    .isInstanceOf(io.sluice.NodeUnreachableException.class)
                    .hasMessageContaining("3 attempt(s)")
                    .hasMessageContaining("closed the connection: it serves at most 1 connections (maxConnections)");
        }
        // The slot is free once the node saw the first connection close.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
            try (Sluice client = SluiceClient.connect(config)) {
                client.createCache(CacheConfig.named("c").withPartitions(4));
                assertThat(client.cacheNames()).containsExactly("c");
            }
        });
    }

    @Test
    void nothingIsServedBeforeAHandshake() throws Exception {
        start(ServerConfig.defaults());
        try (Raw raw = new Raw()) {
            raw.send(Frames.request(UnpooledByteBufAllocator.DEFAULT, Op.SIZE, out -> Wire.writeString(out, "c")));

            Frames.HandshakeReply reply = Frames.readHandshakeReply(raw.read());

            assertThat(reply.status()).isEqualTo(Wire.HANDSHAKE_MALFORMED);
            assertThat(raw.closedByNode()).isTrue();
        }
    }

    @Test
    void anOversizedFrameClosesItsConnectionOnly() throws Exception {
        start(new ServerConfig("127.0.0.1", 0, 64 * 1024, 16, java.time.Duration.ZERO, null, 1L << 20, null));
        try (Sluice good = SluiceClient.connect(ClientConfig.addresses(address())); Raw raw = new Raw()) {
            good.createCache(CacheConfig.named("c").withPartitions(4));
            raw.send(Frames.handshake(UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "greedy", ""));
            assertThat(Frames.readHandshakeReply(raw.read()).status()).isEqualTo(Wire.HANDSHAKE_OK);

            ByteBuf claim = UnpooledByteBufAllocator.DEFAULT.buffer(8).writeInt(Integer.MAX_VALUE).writeLong(1);
            raw.send(claim);

            assertThat(raw.closedByNode()).isTrue();
            Cache<Long, String> cache = good.cache("c");
            cache.put(1L, "still served");
            assertThat(cache.get(1L)).isEqualTo("still served");
        }
    }

    @Test
    void aMalformedEntryFailsItsBatchNamingItAndTheOtherBatchesApply() throws Exception {
        start(ServerConfig.defaults());
        node.createCache(CacheConfig.named("c").withPartitions(8));
        GrowableBuffer good = new GrowableBuffer(64);
        GrowableBuffer bad = new GrowableBuffer(64);
        GrowableBuffer k = new GrowableBuffer(16);
        GrowableBuffer v = new GrowableBuffer(16);
        for (long key = 0; key < 3; key++) {
            k.reset();
            v.reset();
            node.binaryContext().encode(key, k);
            node.binaryContext().encode("v" + key, v);
            EntryBatch.append(good, k.toByteArray(), v.toByteArray());
            byte[] value = v.toByteArray();
            if (key == 2) {
                value[value.length - 1] = 0x41; // the string loses its terminator
            }
            EntryBatch.append(bad, k.toByteArray(), value);
        }
        BatchRequest request = new BatchRequest("c", Receivers.batched(), true, false, List.of(
                new BatchRequest.PartitionBatch(1, new EntryBatch(good.array(), good.position(), 3)),
                new BatchRequest.PartitionBatch(2, new EntryBatch(bad.array(), bad.position(), 3))));
        try (Raw raw = new Raw()) {
            raw.send(Frames.handshake(UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "raw", ""));
            raw.read();
            ByteBuf frame = StreamCodec.encodeRequest(UnpooledByteBufAllocator.DEFAULT, 0, request);
            frame.setLong(Frames.REQUEST_ID_OFFSET, 5);
            raw.send(frame);

            ByteBuf answer = raw.read();
            assertThat(answer.readLong()).isEqualTo(5);
            assertThat((int) answer.readUnsignedByte()).isEqualTo(Wire.STATUS_OK);
            List<BatchOutcome> outcomes = StreamCodec.decodeResponse(answer, "c");
            assertThat(outcomes.get(0).succeeded()).isTrue();
            assertThat(outcomes.get(1).error()).hasMessageContaining("batch of partition 2, entry 2 (byte ")
                    .hasMessageContaining("no terminator");
            assertThat(outcomes.get(1).applied()).isZero();
        }
        assertThat(node.nodeCache("c").store(1).size()).isEqualTo(3);
        assertThat(node.nodeCache("c").store(2).size()).as("nothing of the bad batch is stored").isZero();
    }

    @Test
    void tenThousandRandomAndMutatedFramesLeaveTheNodeUpAndALoadingClientWhole() throws Exception {
        start(new ServerConfig("127.0.0.1", 0, 1 << 20, 64, java.time.Duration.ZERO, null, 8L << 20, null));
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        int frames = Integer.getInteger("sluice.fuzz.frames", 10_000);
        int entries = 200_000;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Sluice good = SluiceClient.connect(ClientConfig.addresses(address()))) {
            good.createCache(CacheConfig.named("good").withPartitions(64));
            node.createCache(CacheConfig.named("victim").withPartitions(16));
            Future<?> load = pool.submit(() -> {
                try (DataStreamer<Long, String> s = good.dataStreamer("good")) {
                    for (long key = 0; key < entries; key++) {
                        s.addData(key, "value-" + key);
                    }
                }
                return null;
            });
            Future<int[]> fuzz = pool.submit(() -> fuzz(new Random(seed), frames));
            int[] counts = fuzz.get(150, TimeUnit.SECONDS);
            load.get(150, TimeUnit.SECONDS);

            Cache<Long, String> cache = good.cache("good");
            assertThat(cache.size()).as("seed %d", seed).isEqualTo(entries);
            for (long key = 0; key < entries; key += 997) {
                assertThat(cache.get(key)).as("seed %d", seed).isEqualTo("value-" + key);
            }
            assertThat(counts[0]).as("seed %d: frames sent", seed).isEqualTo(frames);
            assertThat(counts[1]).as("seed %d: connections the node closed", seed).isPositive();
        } finally {
            pool.shutdownNow();
        }
        System.gc();
        Runtime rt = Runtime.getRuntime();
        assertThat(rt.totalMemory() - rt.freeMemory()).as("seed %d: heap after the storm", seed)
                .isLessThan(512L << 20);
    }

    /** Sends frames made from valid ones by mutation, and raw garbage; reconnects whenever the node hangs up. */
    private int[] fuzz(Random random, int frames) throws IOException {
        List<byte[]> samples = sampleFrames();
        int sent = 0;
        int closed = 0;
        Raw raw = null;
        try {
            while (sent < frames) {
                if (raw == null || raw.socket.isClosed()) {
                    raw = new Raw();
                    // The hang-up probe below waits this long for an end of stream: long enough for a node that
                    // already decided to close, short enough that 200 probes do not make the storm a 40 s wait.
                    raw.socket.setSoTimeout(20);
                    if (random.nextInt(4) != 0) {
                        raw.send(Frames.handshake(UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "fuzz", ""));
                    }
                }
                byte[] frame = mutate(samples.get(random.nextInt(samples.size())), random);
                try {
                    raw.out.write(frame);
                    raw.out.flush();
                    sent++;
                    drain(raw);
                } catch (IOException e) {
                    closed++;
                    raw.close();
                    raw = null;
                    sent++;
                }
                if (raw != null && random.nextInt(50) == 0 && raw.closedByNode()) {
                    closed++;
                    raw.close();
                    raw = null;
                }
            }
        } finally {
            if (raw != null) {
                raw.close();
            }
        }
        return new int[]{sent, closed};
    }

    /** Reads whatever the node answered so far, so its writes never back up. */
    private static void drain(Raw raw) throws IOException {
        InputStream in = raw.socket.getInputStream();
        while (in.available() > 0) {
            if (in.read(new byte[in.available()]) < 0) {
                throw new EOFException();
            }
        }
    }

    private List<byte[]> sampleFrames() {
        UnpooledByteBufAllocator a = UnpooledByteBufAllocator.DEFAULT;
        GrowableBuffer k = new GrowableBuffer(16);
        node.binaryContext().encode(7L, k);
        byte[] key = k.toByteArray();
        GrowableBuffer batch = new GrowableBuffer(64);
        for (int i = 0; i < 4; i++) {
            EntryBatch.append(batch, key, key);
        }
        List<ByteBuf> frames = new ArrayList<>();
        frames.add(StreamCodec.encodeRequest(a, 0, new BatchRequest("victim", Receivers.isolated(), false, false,
                List.of(new BatchRequest.PartitionBatch(3, new EntryBatch(batch.array(), batch.position(), 4))))));
        frames.add(Frames.request(a, Op.GET, out -> {
            Wire.writeString(out, "victim");
            Wire.writeBlob(out, key, 0, key.length);
        }));
        frames.add(Frames.request(a, Op.PUT, out -> {
            Wire.writeString(out, "victim");
            out.writeByte(0);
            Wire.writeBlob(out, key, 0, key.length);
            Wire.writeBlob(out, key, 0, key.length);
        }));
        frames.add(Frames.request(a, Op.SCAN, out -> {
            Wire.writeString(out, "victim");
            out.writeInt(3).writeByte(0).writeInt(100);
        }));
        frames.add(Frames.request(a, Op.GET_ALL, out -> {
            Wire.writeString(out, "victim");
            out.writeInt(1);
            Wire.writeBlob(out, key, 0, key.length);
        }));
        frames.add(Frames.request(a, Op.PUT_TYPES, out -> {
            byte[] types = node.binaryContext().exportTypes();
            Wire.writeBlob(out, types, 0, types.length);
        }));
        frames.add(Frames.handshake(a, Wire.VERSION, "again", "x"));
        List<byte[]> bytes = new ArrayList<>();
        for (ByteBuf f : frames) {
            byte[] b = new byte[f.readableBytes()];
            f.readBytes(b);
            f.release();
            bytes.add(b);
        }
        return bytes;
    }

    private static byte[] mutate(byte[] frame, Random random) {
        byte[] b = frame.clone();
        switch (random.nextInt(6)) {
            case 0 -> {
                for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                    b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 1 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length)); // truncated
            case 2 -> { // a length that claims far more than is there
                int at = 4 + random.nextInt(Math.max(1, b.length - 8));
                b[at] = (byte) 0x7f;
            }
            case 3 -> { // garbage of a plausible length
                b = new byte[4 + random.nextInt(64)];
                random.nextBytes(b);
                int n = b.length - 4;
                b[0] = 0;
                b[1] = 0;
                b[2] = (byte) (n >>> 8);
                b[3] = (byte) n;
            }
            case 4 -> { // the frame length itself lies
                int claimed = random.nextInt(3) == 0 ? Integer.MAX_VALUE : b.length + random.nextInt(1 << 16);
                b[0] = (byte) (claimed >>> 24);
                b[1] = (byte) (claimed >>> 16);
                b[2] = (byte) (claimed >>> 8);
                b[3] = (byte) claimed;
            }
            default -> { // valid, so that some reach the op handlers whole
            }
        }
        return b;
    }
}
