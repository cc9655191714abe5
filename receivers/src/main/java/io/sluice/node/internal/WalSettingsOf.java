package io.sluice.node.internal;

import io.sluice.node.PersistenceConfig;
import io.sluice.pagestore.internal.wal.WalSettings;

/**
 * The node's persistence options as the write-ahead log's own settings: the log sees nothing of the node,
 * so the node hands it plain values ({@link io.sluice.node.WalMode} one to one onto
 * {@link WalSettings.Durability}).
 */
final class WalSettingsOf {

    private WalSettingsOf() {
    }

    /** @throws IllegalArgumentException if persistence is disabled (there is no log then) */
    static WalSettings persistence(PersistenceConfig config) {
        if (!config.enabled()) {
            throw new IllegalArgumentException("persistence is disabled: no write-ahead log");
        }
        return new WalSettings(config.directory(), durability(config.walMode()), config.walFlushInterval(),
                config.walSegmentSize());
    }

    private static WalSettings.Durability durability(io.sluice.node.WalMode mode) {
        return switch (mode) {
            case FSYNC -> WalSettings.Durability.FSYNC;
            case LOG_ONLY -> WalSettings.Durability.LOG_ONLY;
            case BACKGROUND -> WalSettings.Durability.BACKGROUND;
            case NONE -> WalSettings.Durability.NONE;
        };
    }
}
