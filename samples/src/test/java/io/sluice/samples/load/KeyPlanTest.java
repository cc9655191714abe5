package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyPlanTest {

    @Test
    void withoutCollisionsEveryEntryHasItsOwnKeyAndThreadsShareNone() {
        KeyPlan plan = new KeyPlan(10_001, 3, 0);
        Set<Long> keys = new HashSet<>();
        long entries = 0;
        for (int t = 0; t < 3; t++) {
            for (long j = 0; j < plan.entries(t); j++) {
                long key = plan.key(t, j);
                assertThat(key % 3).as("key %d of thread %d", key, t).isEqualTo(t);
                assertThat(keys.add(key)).as("key %d written twice", key).isTrue();
                entries++;
            }
        }
        assertThat(entries).isEqualTo(10_001);
        assertThat(plan.distinct()).isEqualTo(10_001);
        assertThat(keys).hasSize(10_001);
    }

    @Test
    void collisionRatioRepeatsThatShareOfEntriesAndDistinctCountsTheKeysWritten() {
        KeyPlan plan = new KeyPlan(10_000, 2, 0.25);
        Set<Long> keys = new HashSet<>();
        for (int t = 0; t < 2; t++) {
            Set<Long> threadKeys = new HashSet<>();
            for (long j = 0; j < plan.entries(t); j++) {
                threadKeys.add(plan.key(t, j));
            }
            assertThat(threadKeys).hasSize((int) plan.distinct(t));
            for (long i = 0; i < plan.distinct(t); i++) {
                assertThat(threadKeys).contains(plan.distinctKey(t, i));
            }
            keys.addAll(threadKeys);
        }
        assertThat(plan.distinct()).isEqualTo(7_500).isEqualTo(keys.size());
    }

    @Test
    void ratioOneWritesOneKeyPerThread() {
        KeyPlan plan = new KeyPlan(1_000, 4, 1.0);
        assertThat(plan.distinct()).isEqualTo(4);
        assertThat(plan.key(2, 999 / 4)).isEqualTo(2);
    }

    @Test
    void fewerEntriesThanThreadsLeavesThreadsIdle() {
        KeyPlan plan = new KeyPlan(2, 4, 0.5);
        assertThat(plan.entries(2)).isZero();
        assertThat(plan.distinct(3)).isZero();
        assertThat(plan.distinct()).isEqualTo(2);
    }

    @Test
    void rejectsOutOfRangeArguments() {
        assertThatThrownBy(() -> new KeyPlan(-1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KeyPlan(1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KeyPlan(1, 1, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
