package io.sluice;

/**
 * The receivers a streamer can choose ({@link StreamerOptions.Builder#receiver(ReceiverRef)}).
 */
public final class Receivers {

    /** Name of the {@link #isolated()} receiver. */
    public static final String ISOLATED = "isolated";
    /** Name of the {@link #individual()} receiver. */
    public static final String INDIVIDUAL = "individual";
    /** Name of the {@link #batched()} receiver. */
    public static final String BATCHED = "batched";

    /**
     * Prefix of a {@link #transform} receiver's name: {@code transform:<processor name>}. Custom
     * receivers may not use it.
     */
    public static final String TRANSFORM_PREFIX = "transform:";

    private static final ReceiverRef ISOLATED_REF = new ReceiverRef(ISOLATED);
    private static final ReceiverRef INDIVIDUAL_REF = new ReceiverRef(INDIVIDUAL);
    private static final ReceiverRef BATCHED_REF = new ReceiverRef(BATCHED);

    private Receivers() {
    }

    /**
     * Initial load: insert-if-absent, a key already present keeps its value; the whole batch is
     * written with one batch page write and one sorted index pass. The default when
     * {@code allowOverwrite} is false.
     */
    public static ReceiverRef isolated() {
        return ISOLATED_REF;
    }

    /**
     * Each entry as a put or a remove, overwriting; the same result as {@link Cache#put}. The
     * default when {@code allowOverwrite} is true.
     */
    public static ReceiverRef individual() {
        return INDIVIDUAL_REF;
    }

    /** The batch as one putAll/removeAll with keys sorted: overwrites, in one sorted pass. */
    public static ReceiverRef batched() {
        return BATCHED_REF;
    }

    /**
     * The streamed form of {@link Cache#invokeAll}: each streamed entry's value is the argument of the
     * named {@link EntryProcessor} for its key (a built-in of {@link Processors}, or one registered on
     * the node). A batch's keys are processed in one sorted pass over their partition, each key
     * atomically; a key whose processor fails keeps its value and fails the batch (the streamer's
     * {@code flush()} reports it, naming the key), while the batch's other keys are processed.
     * Removals ({@code removeData}) remove the key.
     *
     * @throws IllegalArgumentException if processorName is blank
     */
    public static ReceiverRef transform(String processorName) {
        if (processorName == null || processorName.isBlank()) {
            throw new IllegalArgumentException("processor name must not be blank");
        }
        return new ReceiverRef(TRANSFORM_PREFIX + processorName);
    }

    /**
     * A custom receiver registered on the node under this name.
     *
     * @throws IllegalArgumentException if name is blank
     */
    public static ReceiverRef named(String name) {
        return new ReceiverRef(name);
    }
}
