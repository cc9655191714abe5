package io.sluice;

/** Thrown when an operation names a cache that does not exist. */
public class CacheNotFoundException extends SluiceException {

    private final String cacheName;

    public CacheNotFoundException(String cacheName) {
        super("cache '" + cacheName + "' does not exist; create it first with Sluice.createCache(CacheConfig.named(\""
                + cacheName + "\"))");
        this.cacheName = cacheName;
    }

    /** The name that was not found. */
    public String cacheName() {
        return cacheName;
    }
}
