package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LongOffsetIndexTest {

    @Test
    void behavesAsAHashMapForRandomKeys() {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            int keys = 1 + random.nextInt(2_000);
            LongOffsetIndex index = new LongOffsetIndex(keys);
            Map<Long, Integer> model = new HashMap<>();
            for (int op = 0; op < keys * 3; op++) {
                // Few distinct keys are drawn so that keys repeat and probes collide.
                long key = random.nextBoolean() ? random.nextInt(keys) : -random.nextInt(keys) * 1024L;
                if (model.size() < keys || model.containsKey(key)) {
                    int offset = random.nextInt(Integer.MAX_VALUE);
                    index.put(key, offset);
                    model.put(key, offset);
                }
                long probe = random.nextInt(keys * 2);
                assertThat(index.get(probe)).as("key %d, seed %d", probe, seed)
                        .isEqualTo(model.getOrDefault(probe, LongOffsetIndex.ABSENT));
            }
            assertThat(index.size()).as("seed %d", seed).isEqualTo(model.size());
        }
    }

    @Test
    void refusesMoreKeysThanItHasRoomFor() {
        LongOffsetIndex index = new LongOffsetIndex(4);
        for (int key = 0; key < 15; key++) {
            index.put(key, key);
        }
        assertThatThrownBy(() -> index.put(15, 15)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("raw index full at 15 keys");
        assertThat(index.get(14)).isEqualTo(14);
    }
}
