package io.sluice.pagestore.internal;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Seeds for randomized tests: a fresh one per run (or {@code -Dsluice.seed=N} to replay), and, as
 * a JUnit extension, a failure message that names the seed, whatever threw — an assertion or the
 * store itself.
 */
final class Seeds implements BeforeEachCallback, TestExecutionExceptionHandler {

    private static volatile Long last;

    /** A seed for this test: {@code sluice.seed} if set, else a fresh one. */
    static long fresh() {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        last = seed;
        return seed;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        last = null; // a test with fixed seeds must not be reported with an earlier test's seed
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        Long seed = last;
        last = null;
        if (seed == null) {
            throw failure;
        }
        throw new AssertionError(context.getDisplayName() + " failed with seed " + seed
                + " (replay with -Dsluice.seed=" + seed + "): " + failure, failure);
    }
}
