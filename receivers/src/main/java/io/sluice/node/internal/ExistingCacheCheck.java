package io.sluice.node.internal;

import io.sluice.CacheConfig;

/**
 * The rule for a request naming a cache that exists ({@code getOrCreateCache}, a CREATE_CACHE if absent, a cache the
 * node's config declares and recovery brought back, the cluster's catalogue): a cache's backups, write sync mode,
 * reads from backups and indexes are fixed when it is created, so a request that asks for others is refused, naming
 * both. Its partition count and store follow their own rules (the cluster's count; a store attached after a
 * restart).
 */
public final class ExistingCacheCheck {

    private ExistingCacheCheck() {
    }

    /** Whether the two configs ask for the same options (backups, write sync, reads from backups, indexes). */
    public static boolean sameOptions(CacheConfig existing, CacheConfig requested) {
        return existing.backups() == requested.backups() && existing.writeSync() == requested.writeSync()
                && existing.readFromBackup() == requested.readFromBackup()
                && existing.indexes().equals(requested.indexes());
    }

    /**
     * @param where what holds the existing cache ("this node", "the cluster")
     * @throws IllegalStateException if {@code requested} asks for other options than the existing cache has
     */
    public static void requireSameOptions(CacheConfig existing, CacheConfig requested, String where) {
        if (!sameOptions(existing, requested)) {
            throw new IllegalStateException("cache '" + existing.name() + "' exists in " + where + " with "
                    + options(existing) + "; the config asks for " + options(requested) + ": a cache's options are"
                    + " fixed when it is created (destroy it and create it again to change them)");
        }
    }

    private static String options(CacheConfig c) {
        return "backups " + c.backups() + ", writeSync " + c.writeSync() + ", readFromBackup " + c.readFromBackup()
                + ", indexes " + c.indexes();
    }
}
