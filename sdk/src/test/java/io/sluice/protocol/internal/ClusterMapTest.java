package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterMapTest {

    private static final List<ClusterMap.Member> NODES = List.of(new ClusterMap.Member("a", "127.0.0.1", 10800),
            new ClusterMap.Member("b", "127.0.0.1", 10801), new ClusterMap.Member("c", "127.0.0.1", 10802));

    private static ByteBuf written(ClusterMap map) {
        ByteBuf out = Unpooled.buffer();
        map.write(out);
        return out;
    }

    @Test
    void backupsTravelInTheirOrder() {
        ClusterMap map = new ClusterMap(9, NODES, new int[]{0, 2, ClusterMap.NO_OWNER},
                new int[][]{{2, 1}, {0}, {}});
        ByteBuf wire = written(map);
        ClusterMap read = ClusterMap.read(wire);
        assertThat(wire.isReadable()).isFalse();
        assertThat(read).isEqualTo(map);
        assertThat(read.backupIndexes(0)).containsExactly(2, 1);
        assertThat(read.backupIndexes(1)).containsExactly(0);
        assertThat(read.backupIndexes(2)).isEmpty();
        assertThat(read.backupCount(0)).isEqualTo(2);
        assertThat(read.backupIndex(0, 1)).isEqualTo(1);
    }

    @Test
    void mapsDifferingOnlyInBackupsDiffer() {
        ClusterMap one = new ClusterMap(9, NODES, new int[]{0}, new int[][]{{1}});
        ClusterMap other = new ClusterMap(9, NODES, new int[]{0}, new int[][]{{2}});
        assertThat(one).isNotEqualTo(other);
        assertThat(new ClusterMap(9, NODES, new int[]{0})).isEqualTo(new ClusterMap(9, NODES, new int[]{0},
                new int[][]{{}}));
    }

    @Test
    void aMapWithoutTheBackupSectionReadsAsNoBackups() {
        ByteBuf wire = written(new ClusterMap(3, NODES, new int[]{1, 0}));
        // a node from before backups wrote the owners last
        ByteBuf old = wire.slice(0, wire.readableBytes() - 2);
        ClusterMap read = ClusterMap.read(old);
        assertThat(read.ownerIndex(0)).isEqualTo(1);
        assertThat(read.backupIndexes(0)).isEmpty();
        assertThat(read.backupIndexes(1)).isEmpty();
    }

    @Test
    void standaloneIsOneByte() {
        ByteBuf out = Unpooled.buffer();
        ClusterMap.writeStandalone(out);
        assertThat(out.readableBytes()).isEqualTo(1);
        assertThat(ClusterMap.read(out)).isNull();
    }

    @Test
    void aBackupThatIsTheOwnerOrRepeatedOrOutOfRangeIsRefused() {
        assertThatThrownBy(() -> new ClusterMap(1, NODES, new int[]{0}, new int[][]{{0}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("its owner");
        assertThatThrownBy(() -> new ClusterMap(1, NODES, new int[]{0}, new int[][]{{1, 1}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> new ClusterMap(1, NODES, new int[]{0}, new int[][]{{3}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node 3 of 3");
        assertThatThrownBy(() -> new ClusterMap(1, NODES, new int[]{0, 1}, new int[][]{{1}}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void malformedBackupsAreAMalformedFrame() {
        ByteBuf wire = written(new ClusterMap(3, NODES, new int[]{0}, new int[][]{{1}}));
        ByteBuf cut = wire.slice(0, wire.readableBytes() - 1);
        assertThatThrownBy(() -> ClusterMap.read(cut)).isInstanceOf(Wire.MalformedFrameException.class)
                .hasMessageContaining("backups of partition 0");
        ByteBuf owner = written(new ClusterMap(3, NODES, new int[]{0}, new int[][]{{1}}));
        owner.setShort(owner.writerIndex() - 2, 0);
        assertThatThrownBy(() -> ClusterMap.read(owner)).isInstanceOf(Wire.MalformedFrameException.class)
                .hasMessageContaining("its owner");
    }
}
