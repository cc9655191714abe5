package io.sluice;

import io.sluice.SluiceException;

/**
 * A data region reached its maximum size. Nothing already stored is damaged; the operation
 * that needed the memory did not happen (or, for a batch, see {@link BatchApplyException}).
 */
public class DataRegionFullException extends SluiceException {

    public DataRegionFullException(long maxSize, int pageSize) {
        super("data region is full: all " + maxSize + " bytes (" + (maxSize / pageSize) + " pages of " + pageSize
                + " bytes) are in use; raise NodeConfig.dataRegionMaxSize, or remove entries");
    }

    /** A region that cannot grow for another reason, which the message gives. */
    public DataRegionFullException(String message) {
        super(message);
    }
}
