package io.sluice.samples.load;

/** How a load makes each value. */
public enum ValueKind {

    /** A {@code StockOrder} record per entry, marshalled by Sluice. */
    POJO("pojo"),
    /** A binary object written by a builder that each producer thread keeps and reuses. */
    BINARY("binary");

    private final String cliName;

    ValueKind(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line and in the result table. */
    public String cliName() {
        return cliName;
    }

    @Override
    public String toString() {
        return cliName;
    }
}
