package io.sluice;

import java.util.List;

/** Thrown when a query or {@link Cache#destroyIndex} names fields that no index of the cache has (error kind 14). */
public class IndexNotFoundException extends SluiceException {

    public IndexNotFoundException(String message) {
        super(message);
    }

    /** "cache 'orders' has no index on [price]; its indexes: [[secCode], [account, price]]". */
    public static IndexNotFoundException of(String cache, List<String> fields, List<List<String>> indexes) {
        return new IndexNotFoundException("cache '" + cache + "' has no index on " + fields + "; its indexes: "
                + indexes + " (declare one with CacheConfig.index)");
    }
}
