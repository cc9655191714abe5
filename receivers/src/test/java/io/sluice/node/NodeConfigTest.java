package io.sluice.node;

import io.sluice.Receivers;
import io.sluice.StreamReceiver;
import io.sluice.pagestore.internal.DataRegionConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeConfigTest {

    private static final StreamReceiver<Object, Object> NOOP = (cache, entries) -> { };

    @Test
    void defaultsComeFromTheDataRegionAndTheMachine() {
        NodeConfig config = NodeConfig.defaults();

        assertThat(config.pageSize()).isEqualTo(4096);
        assertThat(config.dataRegionInitialSize()).isEqualTo(DataRegionConfig.DEFAULT_INITIAL_SIZE);
        assertThat(config.dataRegionMaxSize()).isEqualTo(DataRegionConfig.DEFAULT_MAX_SIZE);
        assertThat(config.applyThreads()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(config.receivers()).isEmpty();
    }

    @Test
    void builderKeepsWhatWasSet() {
        NodeConfig config = NodeConfig.builder()
                .pageSize(8192)
                .dataRegionInitialSize(1 << 20)
                .dataRegionMaxSize(64 << 20)
                .applyThreads(3)
                .receiver("audit", () -> NOOP)
                .build();

        assertThat(config.pageSize()).isEqualTo(8192);
        assertThat(config.dataRegionInitialSize()).isEqualTo(1 << 20);
        assertThat(config.dataRegionMaxSize()).isEqualTo(64 << 20);
        assertThat(config.applyThreads()).isEqualTo(3);
        assertThat(config.receivers()).containsOnlyKeys("audit");
    }

    @Test
    void pageSizeMustBeAPowerOfTwoInRange() {
        for (int bad : new int[] {0, 512, 3000, 32768, -4096}) {
            assertThatThrownBy(() -> NodeConfig.builder().pageSize(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("pageSize is " + bad)
                    .hasMessageContaining("NodeConfig.pageSize");
        }
    }

    @Test
    void applyThreadsMustBeInRange() {
        assertThatThrownBy(() -> NodeConfig.builder().applyThreads(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("applyThreads is 0")
                .hasMessageContaining("NodeConfig.applyThreads");
        assertThatThrownBy(() -> NodeConfig.builder().applyThreads(NodeConfig.MAX_APPLY_THREADS + 1))
                .hasMessageContaining("applyThreads is " + (NodeConfig.MAX_APPLY_THREADS + 1));
    }

    @Test
    void regionSizesAreCheckedAlone() {
        assertThatThrownBy(() -> NodeConfig.builder().dataRegionInitialSize(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataRegionInitialSize is -1")
                .hasMessageContaining("NodeConfig.dataRegionInitialSize");
        assertThatThrownBy(() -> NodeConfig.builder().dataRegionMaxSize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataRegionMaxSize is 0")
                .hasMessageContaining("NodeConfig.dataRegionMaxSize");
    }

    @Test
    void regionSizesAreCheckedTogetherAtBuild() {
        assertThatThrownBy(() -> NodeConfig.builder().dataRegionMaxSize(8L << 20).dataRegionInitialSize(16L << 20).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("initialSize is " + (16L << 20))
                .hasMessageContaining("NodeConfig.dataRegionInitialSize");
        assertThatThrownBy(() -> NodeConfig.builder().dataRegionInitialSize(0).dataRegionMaxSize(4096).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 16 pages")
                .hasMessageContaining("NodeConfig.dataRegionMaxSize");
    }

    @Test
    void anUnsetSizeFollowsTheSetOne() {
        NodeConfig small = NodeConfig.builder().dataRegionMaxSize(64L << 20).build();
        assertThat(small.dataRegionMaxSize()).isEqualTo(64L << 20);
        assertThat(small.dataRegionInitialSize()).as("default initial size follows the max down").isEqualTo(64L << 20);

        NodeConfig large = NodeConfig.builder().dataRegionInitialSize(8L << 30).build();
        assertThat(large.dataRegionInitialSize()).isEqualTo(8L << 30);
        assertThat(large.dataRegionMaxSize()).as("default max size follows the initial up").isEqualTo(8L << 30);

        NodeConfig roomy = NodeConfig.builder().dataRegionMaxSize(1L << 30).build();
        assertThat(roomy.dataRegionInitialSize()).as("a default that fits stays").isEqualTo(DataRegionConfig.DEFAULT_INITIAL_SIZE);
    }

    @Test
    void builtInReceiverNamesAreReserved() {
        for (String name : new String[] {Receivers.ISOLATED, Receivers.INDIVIDUAL, Receivers.BATCHED}) {
            assertThatThrownBy(() -> NodeConfig.builder().receiver(name, () -> NOOP))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + name + "' is reserved");
        }
    }

    @Test
    void aReceiverNameIsRegisteredOnce() {
        NodeConfig.Builder builder = NodeConfig.builder().receiver("audit", () -> NOOP);

        assertThatThrownBy(() -> builder.receiver("audit", () -> NOOP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'audit' is already registered");
    }

    @Test
    void receiverNeedsANameAndAFactory() {
        assertThatThrownBy(() -> NodeConfig.builder().receiver(null, () -> NOOP))
                .isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> NodeConfig.builder().receiver("x", null))
                .isInstanceOf(NullPointerException.class).hasMessage("factory");
        assertThatThrownBy(() -> NodeConfig.builder().receiver(" ", () -> NOOP))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
    }

    @Test
    void builtConfigDoesNotChangeWithItsBuilder() {
        NodeConfig.Builder builder = NodeConfig.builder().receiver("a", () -> NOOP);
        NodeConfig config = builder.build();

        builder.receiver("b", () -> NOOP);

        assertThat(config.receivers()).containsOnlyKeys("a");
        assertThatThrownBy(() -> config.receivers().put("c", () -> NOOP))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void storesAreRegisteredOnceByName() {
        io.sluice.CacheStore<Object, Object> store = new io.sluice.CacheStore<>() {
            @Override
            public Object load(Object key) {
                return null;
            }

            @Override
            public void write(Object key, Object value) {
            }

            @Override
            public void delete(Object key) {
            }
        };
        NodeConfig.Builder builder = NodeConfig.builder().store("pg", () -> store);
        assertThatThrownBy(() -> builder.store("pg", () -> store)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store 'pg' is already registered");
        assertThatThrownBy(() -> builder.store(" ", () -> store)).isInstanceOf(IllegalArgumentException.class);
        NodeConfig config = builder.build();
        assertThat(config.stores()).containsOnlyKeys("pg");
        assertThat(config.stores().get("pg").get()).isSameAs(store);
        assertThat(config.toString()).contains("stores=[pg]");
    }
}
