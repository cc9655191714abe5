package io.sluice;

import java.util.List;

/**
 * A cache store failed to read or write some keys. The message names them (the first few, and how
 * many there were); {@link #keys()} holds those named.
 */
public class CacheStoreException extends SluiceException {

    private static final long serialVersionUID = 1L;

    /** Keys named in a message at most. */
    public static final int MAX_NAMED_KEYS = 10;

    private final transient List<Object> keys;

    /**
     * @param what  what failed, e.g. "writeBatch of 20 entries to table orders"
     * @param keys  the keys involved (the first {@value #MAX_NAMED_KEYS} are kept and named)
     * @param cause the store's error
     */
    public CacheStoreException(String what, List<?> keys, Throwable cause) {
        super(what + " failed for " + keys.size() + " key(s) " + named(keys) + ": " + cause, cause);
        this.keys = List.copyOf(keys.subList(0, Math.min(keys.size(), MAX_NAMED_KEYS)));
    }

    /**
     * A store failure a remote node reported: its message names the keys as the node's did;
     * {@link #keys()} is empty (the keys stayed on the node).
     */
    public CacheStoreException(String message) {
        super(message);
        this.keys = List.of();
    }

    private static String named(List<?> keys) {
        List<?> first = keys.subList(0, Math.min(keys.size(), MAX_NAMED_KEYS));
        return first + (keys.size() > first.size() ? " and " + (keys.size() - first.size()) + " more" : "");
    }

    /** The keys named in the message (at most {@value #MAX_NAMED_KEYS}); empty when a remote node reported it. */
    public List<Object> keys() {
        return keys;
    }
}
