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
     * A custom receiver registered on the node under this name.
     *
     * @throws IllegalArgumentException if name is blank
     */
    public static ReceiverRef named(String name) {
        return new ReceiverRef(name);
    }
}
