package io.sluice.binary.internal.other;

/** A superclass in another package with a private field: its subclasses get the reflective writer. */
public class ForeignBase {
    private String origin;
    public long serial;

    public void origin(String origin) {
        this.origin = origin;
    }
}
