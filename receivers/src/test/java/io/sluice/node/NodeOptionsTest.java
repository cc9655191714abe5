package io.sluice.node;

import io.sluice.server.internal.NodeFileConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The node's options are declared once ({@link NodeOptions}): the docs' key tables are the declared rows, the
 * file reader reads exactly the declared keys, and the configs take their defaults and bounds from the rows.
 */
class NodeOptionsTest {

    private static String doc(String name) throws IOException {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(dir.resolve("docs"))) {
            dir = dir.getParent();
        }
        return Files.readString(dir.resolve("docs").resolve(name));
    }

    @Test
    void theDocsKeyTablesAreTheDeclaredOptions() throws IOException {
        assertThat(doc("protocol.md")).as("docs/protocol.md's node file table; expected:%n%s",
                NodeOptions.FILE.markdownTable()).contains(NodeOptions.FILE.markdownTable());
        assertThat(doc("durability.md")).as("docs/durability.md's persistence table; expected:%n%s",
                NodeOptions.PERSISTENCE.markdownTable()).contains(NodeOptions.PERSISTENCE.markdownTable());
        assertThat(doc("cluster.md")).as("docs/cluster.md's cluster table; expected:%n%s",
                NodeOptions.CLUSTER.markdownTable()).contains(NodeOptions.CLUSTER.markdownTable());
    }

    @Test
    void theFileReaderReadsExactlyTheDeclaredKeys() {
        assertThat(names(NodeFileConfig.class.getRecordComponents()))
                .containsExactlyInAnyOrderElementsOf(NodeOptions.FILE.keys());
        assertThat(names(NodeFileConfig.PersistenceEntry.class.getRecordComponents()))
                .containsExactlyInAnyOrderElementsOf(NodeOptions.PERSISTENCE.keys());
        assertThat(names(io.sluice.server.internal.ClusterFileConfig.class.getRecordComponents()))
                .containsExactlyInAnyOrderElementsOf(NodeOptions.CLUSTER.keys());
    }

    private static List<String> names(RecordComponent[] components) {
        return Arrays.stream(components).map(RecordComponent::getName).toList();
    }

    @Test
    void theConfigsTakeTheirDefaultsFromTheDeclaredOptions() {
        NodeConfig node = NodeConfig.defaults();
        assertThat(node.pageSize()).isEqualTo(NodeOptions.PAGE_SIZE.defaultValue());
        assertThat(node.dataRegionInitialSize()).isEqualTo(NodeOptions.DATA_REGION_INITIAL_SIZE.defaultValue());
        assertThat(node.dataRegionMaxSize()).isEqualTo(NodeOptions.DATA_REGION_MAX_SIZE.defaultValue());
        PersistenceConfig p = PersistenceConfig.at(Path.of("dir"));
        assertThat(p.walMode()).isEqualTo(NodeOptions.WAL_MODE.defaultValue());
        assertThat(p.walFlushInterval()).isEqualTo(NodeOptions.WAL_FLUSH_INTERVAL.defaultValue());
        assertThat(p.walSegmentSize()).isEqualTo(NodeOptions.WAL_SEGMENT_SIZE.defaultValue());
        assertThat(p.checkpointInterval()).isEqualTo(NodeOptions.CHECKPOINT_INTERVAL.defaultValue());
        assertThat(p.checkOnRecovery()).isEqualTo(NodeOptions.CHECK_ON_RECOVERY.defaultValue());
        assertThat(p.recoveredKeysMemory()).isEqualTo(NodeOptions.RECOVERED_KEYS_MEMORY.defaultValue());
        assertThat(ClusterConfig.of("zk:2181", "c", "n").sessionTimeout())
                .isEqualTo(NodeOptions.SESSION_TIMEOUT.defaultValue());
    }

    @Test
    void aValueOutOfBoundsIsRefusedNamingTheOptionTheValueAndTheBounds() {
        assertThatThrownBy(() -> NodeConfig.builder().applyThreads(0))
                .hasMessage("applyThreads is 0; it must be between 1 and 1024 (NodeConfig.applyThreads)");
        assertThatThrownBy(() -> PersistenceConfig.at(Path.of("dir")).withWalSegmentSize(10))
                .hasMessage("walSegmentSize is 10 bytes; it must be between 1048576 (1 MiB) and 1 GiB"
                        + " (PersistenceConfig.walSegmentSize)");
        assertThat(NodeOptions.PORT.check(0)).isZero();
        assertThatThrownBy(() -> NodeOptions.PORT.check(65536))
                .hasMessage("port is 65536; it must be between 0 (any free port) and 65535");
    }
}
