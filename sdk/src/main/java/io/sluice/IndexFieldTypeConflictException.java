package io.sluice;

/**
 * Thrown when a query runs on an index whose entries disagree on the indexed field's type (error kind 16): some
 * values hold it as one type, others as another, so a query over it has no single order. Nothing stored is
 * changed by the query; rewrite the entries of the other type (or index another field).
 */
public class IndexFieldTypeConflictException extends SluiceException {

    public IndexFieldTypeConflictException(String message) {
        super(message);
    }
}
