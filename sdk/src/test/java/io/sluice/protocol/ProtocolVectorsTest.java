package io.sluice.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.Receivers;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.CacheNamesCodec;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.IndexQueryWire;
import io.sluice.query.internal.IndexBounds;
import io.sluice.query.internal.IndexPage;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.StreamCodec;
import io.sluice.protocol.internal.Wire;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The vectors in docs/protocol.md are what the codec writes, and read back as documented. */
class ProtocolVectorsTest {

    private static final Path DOC = Path.of("../docs/protocol.md");
    private static final ClusterMap CLUSTER_MAP = new ClusterMap(5, List.of(new ClusterMap.Member("a", "h", 1),
            new ClusterMap.Member("b", "h", 2)), new int[]{0, ClusterMap.NO_OWNER}, new int[][]{{1}, {}});
    private final ByteBufAllocator alloc = UnpooledByteBufAllocator.DEFAULT;
    private final BinaryContext binary = new BinaryContext();

    private byte[] encode(Object value) {
        GrowableBuffer out = new GrowableBuffer(16);
        binary.encode(value, out);
        return out.toByteArray();
    }

    private Map<String, ByteBuf> frames() {
        byte[] key = encode(1L);
        byte[] value = encode("x");
        Map<String, ByteBuf> f = new LinkedHashMap<>();
        f.put("handshake", Frames.handshake(alloc, 1, "app", ""));
        f.put("handshake-reply-ok", Frames.handshakeReply(alloc, 0, "", "n1"));
        f.put("handshake-reply-version", Frames.handshakeReply(alloc, 1, "v", "n1"));
        ByteBuf get = Frames.request(alloc, Op.GET, out -> {
            Wire.writeString(out, "c");
            Wire.writeBlob(out, key, 0, key.length);
        });
        get.setLong(Frames.REQUEST_ID_OFFSET, 7);
        f.put("get-request", get);
        f.put("get-response", Frames.ok(alloc, 7, out -> {
            out.writeByte(1);
            Wire.writeBlob(out, value, 0, value.length);
        }));
        GrowableBuffer batch = new GrowableBuffer(32);
        EntryBatch.append(batch, key, value);
        ByteBuf stream = StreamCodec.encodeRequest(alloc, 0, new BatchRequest("c", Receivers.isolated(), false, false,
                List.of(new BatchRequest.PartitionBatch(3, new EntryBatch(batch.array(), batch.position(), 1)))));
        stream.setLong(Frames.REQUEST_ID_OFFSET, 8);
        f.put("stream-request", stream);
        f.put("stream-response", Frames.ok(alloc, 8, out -> StreamCodec.encodeResponse(out,
                List.of(BatchOutcome.success(1)))));
        f.put("error-response", Frames.error(alloc, 9, ErrorKind.CACHE_NOT_FOUND, "no c"));
        ByteBuf names = Frames.request(alloc, Op.CACHE_NAMES, out -> { });
        names.setLong(Frames.REQUEST_ID_OFFSET, 10);
        f.put("cache-names-request", names);
        f.put("cache-names-response", Frames.ok(alloc, 10, out -> CacheNamesCodec.write(out, List.of("a", "bc"))));
        f.put("cluster-map-response", Frames.ok(alloc, 11, out -> CLUSTER_MAP.write(out)));
        byte[] one = encode(1);
        ByteBuf query = Frames.request(alloc, Op.INDEX_QUERY, out -> IndexQueryWire.writeRequest(out,
                new IndexQueryWire.Request("c", List.of("a"), new IndexBounds(one, true, one, true), null, 256, null)));
        query.setLong(Frames.REQUEST_ID_OFFSET, 11);
        f.put("index-query-request", query);
        IndexPage page = new IndexPage(1);
        byte[] indexKey = java.util.Arrays.copyOf(one, one.length + key.length);
        System.arraycopy(key, 0, indexKey, one.length, key.length);
        page.add(indexKey, key, value);
        f.put("index-query-response", Frames.ok(alloc, 11, out -> IndexQueryWire.writePage(out, page.more(false))));
        return f;
    }

    private static Map<String, String> documented() throws IOException {
        String doc = Files.readString(DOC);
        String table = doc.substring(doc.indexOf("<!-- vectors:start -->"), doc.indexOf("<!-- vectors:end -->"));
        Map<String, String> vectors = new LinkedHashMap<>();
        for (String line : table.split("\n")) {
            String[] cells = line.split("\\|");
            if (cells.length >= 3 && cells[1].trim().startsWith("`")) {
                vectors.put(cells[1].trim().replace("`", ""), cells[2].trim().replace(" ", ""));
            }
        }
        return vectors;
    }

    private static byte[] bytes(ByteBuf buf) {
        byte[] b = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), b);
        return b;
    }

    @Test
    void everyDocumentedFrameIsWhatTheCodecWrites() throws IOException {
        Map<String, String> doc = documented();
        Map<String, ByteBuf> written = frames();
        assertThat(doc.keySet()).containsExactlyElementsOf(written.keySet());
        for (Map.Entry<String, ByteBuf> e : written.entrySet()) {
            assertThat(HexFormat.of().formatHex(bytes(e.getValue()))).as("vector %s", e.getKey())
                    .isEqualTo(doc.get(e.getKey()));
        }
    }

    @Test
    void documentedFramesReadBackAsTheirCalls() throws IOException {
        Map<String, String> doc = documented();
        ByteBuf hs = frame(doc.get("handshake"));
        Frames.Handshake h = Frames.readHandshake(hs);
        assertThat(h).isEqualTo(new Frames.Handshake(1, "app", ""));

        Frames.HandshakeReply reply = Frames.readHandshakeReply(frame(doc.get("handshake-reply-version")));
        assertThat(reply).isEqualTo(new Frames.HandshakeReply(1, 1, "v", "n1"));

        ByteBuf names = frame(doc.get("cache-names-response"));
        assertThat(names.readLong()).isEqualTo(10);
        assertThat(names.readUnsignedByte()).isEqualTo((short) Wire.STATUS_OK);
        assertThat(CacheNamesCodec.read(names)).containsExactly("a", "bc");
        assertThat(names.isReadable()).isFalse();

        ByteBuf map = frame(doc.get("cluster-map-response"));
        assertThat(map.readLong()).isEqualTo(11);
        assertThat(map.readUnsignedByte()).isEqualTo((short) Wire.STATUS_OK);
        assertThat(ClusterMap.read(map)).isEqualTo(CLUSTER_MAP);
        assertThat(map.isReadable()).isFalse();

        ByteBuf stream = frame(doc.get("stream-request"));
        assertThat(stream.readLong()).isEqualTo(8);
        assertThat(Op.of(stream.readUnsignedByte())).isEqualTo(Op.STREAM);
        StreamCodec.Request request = StreamCodec.decodeRequest(stream);
        assertThat(request.cacheName()).isEqualTo("c");
        assertThat(request.receiver()).isEqualTo(Receivers.isolated());
        EntryBatch entries = request.batches().get(0).entries();
        assertThat(request.batches().get(0).partition()).isEqualTo(3);
        entries.checkStructure();
        assertThat(binary.decode(entries.data(), entries.keyOffset(0), entries.keyLength(0), true)).isEqualTo(1L);
        assertThat(binary.decode(entries.data(), entries.valueOffset(0), entries.valueLength(0), true)).isEqualTo("x");

        ByteBuf query = frame(doc.get("index-query-request"));
        assertThat(query.readLong()).isEqualTo(11);
        assertThat(Op.of(query.readUnsignedByte())).isEqualTo(Op.INDEX_QUERY);
        IndexQueryWire.Request q = IndexQueryWire.readRequest(query);
        assertThat(q.cache()).isEqualTo("c");
        assertThat(q.fields()).containsExactly("a");
        assertThat(q.bounds()).isEqualTo(new IndexBounds(encode(1), true, encode(1), true));
        assertThat(q.after()).isNull();
        assertThat(q.partitions()).isNull();
        assertThat(query.isReadable()).isFalse();
        ByteBuf answer = frame(doc.get("index-query-response"));
        assertThat(answer.readLong()).isEqualTo(11);
        assertThat((int) answer.readUnsignedByte()).isEqualTo(Wire.STATUS_OK);
        IndexPage page = IndexQueryWire.readPage(answer);
        assertThat(page.size()).isEqualTo(1);
        assertThat(binary.decode(page.key(0), 0, page.key(0).length, true)).isEqualTo(1L);
        assertThat(binary.decode(page.value(0), 0, page.value(0).length, true)).isEqualTo("x");
        assertThat(page.more()).isFalse();

        ByteBuf response = frame(doc.get("stream-response"));
        assertThat(response.readLong()).isEqualTo(8);
        assertThat((int) response.readUnsignedByte()).isEqualTo(Wire.STATUS_OK);
        assertThat(StreamCodec.decodeResponse(response, "c")).containsExactly(BatchOutcome.success(1));
    }

    /** A documented frame with its length prefix checked and stripped, as the frame decoder hands it on. */
    private static ByteBuf frame(String hex) {
        ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex));
        assertThat(buf.readInt()).isEqualTo(buf.readableBytes());
        return buf;
    }
}
