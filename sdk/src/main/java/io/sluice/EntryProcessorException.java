package io.sluice;

import java.util.Map;

/**
 * Some keys of an {@code invoke}/{@code invokeAll} failed: the processor is unknown, threw, or did
 * not fit the stored value. Failed keys keep their values; every other key was processed, and its
 * result is in {@link #results()}.
 */
public class EntryProcessorException extends SluiceException {

    private final transient Map<Object, Object> results;
    private final transient Map<Object, Throwable> failures;

    /**
     * @param processor the processor's name
     * @param results   results of the keys that succeeded (a key with a null result maps to null)
     * @param failures  the cause for each failed key (at least one)
     */
    public EntryProcessorException(String processor, Map<?, ?> results, Map<?, ? extends Throwable> failures) {
        super(message(processor, failures), failures.values().iterator().next());
        this.results = java.util.Collections.unmodifiableMap(new java.util.HashMap<>(results));
        this.failures = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(failures));
    }

    private static String message(String processor, Map<?, ? extends Throwable> failures) {
        Map.Entry<?, ? extends Throwable> first = failures.entrySet().iterator().next();
        String more = failures.size() > 1 ? " (and " + (failures.size() - 1) + " more keys)" : "";
        return "processor '" + processor + "' failed for key " + first.getKey() + more + ": "
                + first.getValue().getMessage();
    }

    /** The results of the keys that were processed. */
    public Map<Object, Object> results() {
        return results;
    }

    /** The keys that failed, each with its cause. */
    public Map<Object, Throwable> failures() {
        return failures;
    }
}
