package io.sluice.pagestore.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JVM's pool of held-change arrays ({@link HeldChangesBudget}) keeps at most {@link HeldChangesBudget#STRONG_POOL}
 * bytes strongly after a load gave its arrays back; the rest is held softly (reused while the heap has room).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeldChangesBudgetPoolTest {

    @Test
    void aLoadsArraysBeyondTheStrongBoundArePooledSoftly() {
        HeldChangesBudget budget = new HeldChangesBudget(256L << 20);
        List<IndexOps> taken = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < 48; i++) {
            IndexOps ops = budget.take();
            ops.open(512 * 1024); // grows its arrays to ~0.5 MiB, as a partition's held changes do
            ops.commit(IndexOps.PUT, i);
            taken.add(ops);
            bytes += ops.capacityBytes();
        }
        assertThat(bytes).as("the load's arrays").isGreaterThan(2 * HeldChangesBudget.STRONG_POOL);

        taken.forEach(budget::giveBack);

        assertThat(HeldChangesBudget.strongPoolBytes()).isLessThanOrEqualTo(HeldChangesBudget.STRONG_POOL);
    }
}
