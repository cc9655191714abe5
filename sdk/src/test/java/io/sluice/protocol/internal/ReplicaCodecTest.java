package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.binary.internal.GrowableBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** REPLICATE's body and answer (issue 27): what a primary encodes once is what its backups read. */
class ReplicaCodecTest {

    @Test
    void aFrameOfRecordsReadsBackAsItWasWritten() {
        GrowableBuffer entries = new GrowableBuffer(64);
        EntryBatch.append(entries, bytes("k1"), bytes("v1"));
        EntryBatch.append(entries, bytes("k2"), null);
        byte[] first = ReplicaCodec.record(7, 3, ReplicaCodec.cacheName("orders"), ReplicaCodec.MODE_UPSERT,
                ReplicaCodec.FLAG_SKIP_STORE, 2, entries.array(), 0, entries.position());
        byte[] second = ReplicaCodec.record(1, 9, ReplicaCodec.cacheName("trades"),
                ReplicaCodec.MODE_INSERT_IF_ABSENT, ReplicaCodec.FLAG_PARTIAL, 0, new byte[0], 0, 0);
        ByteBuf body = Unpooled.buffer();
        ReplicaCodec.writeFrame(body, "node-1", 42, 100, List.of(first, second));

        ReplicaCodec.Frame frame = ReplicaCodec.readFrame(body);

        assertThat(frame.primary()).isEqualTo("node-1");
        assertThat(frame.streamId()).isEqualTo(42);
        assertThat(frame.firstSequence()).isEqualTo(100);
        assertThat(frame.records()).hasSize(2);
        ReplicaCodec.Record r = frame.records().get(0);
        assertThat(r.partition()).isEqualTo(7);
        assertThat(r.epoch()).isEqualTo(3);
        assertThat(r.cache()).isEqualTo("orders");
        assertThat(r.mode()).isEqualTo(ReplicaCodec.MODE_UPSERT);
        assertThat(r.skipStore()).isTrue();
        assertThat(r.partial()).isFalse();
        assertThat(r.entries().size()).isEqualTo(2);
        assertThat(new String(r.entries().data(), r.entries().keyOffset(0), r.entries().keyLength(0),
                StandardCharsets.UTF_8)).isEqualTo("k1");
        assertThat(r.entries().isRemoval(1)).isTrue();
        ReplicaCodec.Record s = frame.records().get(1);
        assertThat(s.cache()).isEqualTo("trades");
        assertThat(s.partial()).isTrue();
        assertThat(s.entries().size()).isZero();
    }

    @Test
    void refusalsReadBackAsWritten() {
        ByteBuf body = Unpooled.buffer();
        ReplicaCodec.writeRefusals(body, List.of(new ReplicaCodec.Refusal(3, ErrorKind.STALE_EPOCH),
                new ReplicaCodec.Refusal(5, ErrorKind.NOT_FOLLOWING)));
        assertThat(ReplicaCodec.readRefusals(body)).containsExactly(
                new ReplicaCodec.Refusal(3, ErrorKind.STALE_EPOCH), new ReplicaCodec.Refusal(5, ErrorKind.NOT_FOLLOWING));
        assertThat(ErrorKind.of(12)).isEqualTo(ErrorKind.STALE_EPOCH);
        assertThat(ErrorKind.of(new StaleEpochException("x"))).isEqualTo(ErrorKind.STALE_EPOCH);
        assertThat(ErrorKind.NOT_FOLLOWING.toException("y", null)).isInstanceOf(NotFollowingException.class);
        assertThat(Op.of(20)).isEqualTo(Op.REPLICATE);
    }

    @Test
    void aRecordWhoseLengthRunsPastTheFrameIsMalformed() {
        byte[] record = ReplicaCodec.record(0, 1, ReplicaCodec.cacheName("c"), ReplicaCodec.MODE_UPSERT, 0, 1,
                new byte[16], 0, 16);
        ByteBuf body = Unpooled.buffer();
        ReplicaCodec.writeFrame(body, "p", 1, 1, List.of(record));
        ByteBuf cut = body.slice(0, body.readableBytes() - 4);
        assertThatThrownBy(() -> ReplicaCodec.readFrame(cut)).isInstanceOf(Wire.MalformedFrameException.class);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
