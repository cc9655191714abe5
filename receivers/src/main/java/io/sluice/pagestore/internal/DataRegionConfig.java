package io.sluice.pagestore.internal;

/**
 * Size of a data region's page memory. The page store knows nothing of the node: the node makes this from its
 * {@code NodeConfig} (the options' names in the messages are the node's, for the user who set them).
 *
 * @param pageSize    bytes per page: a power of two from 1 KiB to 16 KiB
 * @param initialSize bytes reserved at start
 * @param maxSize     bytes the region may grow to; allocating past it fails with {@link io.sluice.DataRegionFullException}
 */
public record DataRegionConfig(int pageSize, long initialSize, long maxSize) {

    /** 4 KiB pages. */
    public static final int DEFAULT_PAGE_SIZE = 4096;
    /** 256 MiB reserved at start. */
    public static final long DEFAULT_INITIAL_SIZE = 256L << 20;
    /** 4 GiB at most. */
    public static final long DEFAULT_MAX_SIZE = 4L << 30;

    /** The fewest pages a region may have. */
    public static final int MIN_PAGES = 16;

    public DataRegionConfig {
        checkPageSize(pageSize);
        if (maxSize < (long) pageSize * MIN_PAGES) {
            throw new IllegalArgumentException("data region maxSize is " + maxSize + " bytes; it must hold at least "
                    + MIN_PAGES + " pages (" + (long) pageSize * MIN_PAGES + " bytes) (NodeConfig.dataRegionMaxSize)");
        }
        if (initialSize < 0 || initialSize > maxSize) {
            throw new IllegalArgumentException("data region initialSize is " + initialSize
                    + " bytes; it must be between 0 and maxSize (" + maxSize + ") (NodeConfig.dataRegionInitialSize)");
        }
    }

    /** @throws IllegalArgumentException unless a power of two from 1 KiB to 16 KiB */
    public static void checkPageSize(int pageSize) {
        if (pageSize < 1024 || pageSize > 16384 || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("pageSize is " + pageSize
                    + "; it must be a power of two from 1024 to 16384 (NodeConfig.pageSize)");
        }
    }

    public static DataRegionConfig defaults() {
        return new DataRegionConfig(DEFAULT_PAGE_SIZE, DEFAULT_INITIAL_SIZE, DEFAULT_MAX_SIZE);
    }
}
