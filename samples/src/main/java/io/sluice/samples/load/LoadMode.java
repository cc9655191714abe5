package io.sluice.samples.load;

import java.util.Locale;

/** How {@code sluice-load} writes the entries; each mode loads into its own fresh cache. */
public enum LoadMode {

    /** Baseline without Sluice: serialize into an off-heap arena and index the offset in a hash table. */
    RAW("raw"),
    /** One {@code cache.put} per entry. */
    PUT("put"),
    /** {@code cache.putAll} of sorted batches. */
    PUT_ALL("putAll"),
    /** A streamer with the isolated receiver (insert-if-absent, batch page writes). */
    STREAMER_ISOLATED("streamer-isolated"),
    /** A streamer with the individual receiver (a put per entry on the node). */
    STREAMER_INDIVIDUAL("streamer-individual"),
    /** A streamer with the batched receiver (a sorted putAll per batch on the node). */
    STREAMER_BATCHED("streamer-batched");

    private final String cliName;

    LoadMode(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line and in the result table. */
    public String cliName() {
        return cliName;
    }

    /** Whether the mode needs a node (all but the raw baseline). */
    public boolean needsNode() {
        return this != RAW;
    }

    /**
     * The mode with this command-line name, ignoring case.
     *
     * @throws IllegalArgumentException naming the value and the accepted names
     */
    public static LoadMode fromCliName(String name) {
        for (LoadMode mode : values()) {
            if (mode.cliName.toLowerCase(Locale.ROOT).equals(name.trim().toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown mode '" + name + "'; the modes are " + cliNames());
    }

    /** Every mode's command-line name, comma-separated. */
    public static String cliNames() {
        StringBuilder names = new StringBuilder();
        for (LoadMode mode : values()) {
            if (names.length() > 0) {
                names.append(", ");
            }
            names.append(mode.cliName);
        }
        return names.toString();
    }

    @Override
    public String toString() {
        return cliName;
    }
}
