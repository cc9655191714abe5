package io.sluice.node.internal;

import io.sluice.cachestore.internal.StoreAttachment;
import io.sluice.CacheConfig;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.node.NodeConfig;
import io.sluice.pagestore.internal.ConsistencyReport;
import io.sluice.pagestore.internal.checkpoint.CheckpointCorruptedException;
import io.sluice.pagestore.internal.checkpoint.CheckpointLoader;
import io.sluice.pagestore.internal.checkpoint.Checkpointer;
import io.sluice.pagestore.internal.checkpoint.Manifest;
import io.sluice.pagestore.internal.wal.WalFailedException;
import io.sluice.pagestore.internal.wal.WalReader;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import io.sluice.protocol.internal.CacheOptionsWire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Brings a persistent node's caches back at start: loads the last checkpoint (its caches, their store
 * attachments and partition files), replays the log after its mark ({@link LogReplay}), deletes the moves directory's
 * files no replayed record needs ({@link AdoptedFiles}), optionally checks the store, and starts the checkpoints. Runs once, on the starting thread, before the node serves anything.
 */
final class NodeRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRecovery.class);

    /** Why a recovered cache awaits its store while the node starts. */
    static final String RECOVERING = "the node is starting";

    private NodeRecovery() {
    }

    /**
     * Recovers the catalogue's caches from the log's directory and starts checkpoints.
     *
     * @return the node's checkpoints, started
     * @throws WalFailedException if the manifest cannot be read
     * @throws CheckpointCorruptedException or {@link io.sluice.pagestore.internal.wal.WalCorruptedException} if the
     *                                      checkpoint or the log cannot be trusted
     * @throws IllegalStateException if the store check after recovery finds problems
     */
    static Checkpointer recover(NodeConfig config, WriteAheadLog wal, CacheCatalogue catalogue,
                                RecoveredKeys recoveredKeys, BinaryContext binary, CheckpointCapture capture,
                                AdoptedFiles adopted) {
        long start = System.nanoTime();
        Manifest manifest = readManifest(wal.directory());
        Checkpointer checkpoints = new Checkpointer(wal.directory(), wal, capture::capture,
                capture::confirmWriteBehind, config.persistence().checkpointInterval(), manifest);
        checkpoints.onCommit(adopted::committed);
        try {
            long loaded = manifest == null ? 0 : loadCheckpoint(config, wal, catalogue, binary, manifest, checkpoints);
            long loadedAt = System.nanoTime();
            WalReader.Summary summary;
            try (LogReplay replay = new LogReplay(catalogue, recoveredKeys, binary, config.applyThreads(),
                    adopted)) {
                summary = wal.recover(replay, manifest == null ? 0 : manifest.mark());
            }
            recoveredKeys.recovered();
            deleteUnneeded(adopted);
            LOG.info("recovered {} caches from {}: checkpoint {} ({} entries) in {} ms, then {} records ({} bytes) of"
                            + " log in {} ms{}", catalogue.byId().size(), wal.directory(),
                    manifest == null ? "none" : manifest.number(), loaded, (loadedAt - start) / 1_000_000,
                    summary.records(), summary.bytes(), (System.nanoTime() - loadedAt) / 1_000_000,
                    summary.dropped() == null ? "" : "; dropped a torn tail: " + summary.dropped());
            if (config.persistence().checkOnRecovery()) {
                ConsistencyReport report = catalogue.checkConsistency();
                if (!report.ok()) {
                    throw new IllegalStateException("the store in " + wal.directory()
                            + " failed its consistency check after recovery: " + report);
                }
                LOG.info("store check after recovery: {}", report);
            }
            checkpoints.start();
            return checkpoints;
        } catch (RuntimeException | Error e) {
            checkpoints.close();
            throw e;
        }
    }

    /** The moves directory's files no replayed record needs: unfinished transfers, or partitions a checkpoint holds. */
    private static void deleteUnneeded(AdoptedFiles adopted) {
        try {
            adopted.deleteUnneeded();
        } catch (IOException e) {
            throw new WalFailedException("cannot clean the moves directory " + adopted.directory() + ": " + e, e);
        }
    }

    private static Manifest readManifest(Path directory) {
        try {
            return Manifest.read(directory);
        } catch (IOException e) {
            throw new WalFailedException("cannot read the checkpoint manifest in " + directory + ": " + e, e);
        }
    }

    /** Creates the checkpoint's caches and loads their partition files. @return entries loaded */
    private static long loadCheckpoint(NodeConfig config, WriteAheadLog wal, CacheCatalogue catalogue,
                                       BinaryContext binary, Manifest manifest, Checkpointer checkpoints) {
        synchronized (catalogue.lock()) {
            binary.importTypes(manifest.types());
            for (Manifest.CacheFiles c : manifest.caches()) {
                String where = "the checkpoint manifest in " + wal.directory() + " (cache '" + c.name() + "')";
                CacheOptionsWire.Options options;
                try {
                    options = c.options() == null ? CacheOptionsWire.DEFAULTS
                            : CacheOptionsWire.fromBytes(c.options(), where);
                } catch (IllegalArgumentException e) {
                    throw new CheckpointCorruptedException(e.getMessage(), e);
                }
                NodeCache<Object, Object> cache = catalogue.restore(
                        CacheConfig.named(c.name()).withPartitions(c.files().length), c.id(), options);
                if (c.store() != null) {
                    try {
                        cache.storeSlot().await(StoreAttachment.fromBytes(c.store(), where), RECOVERING);
                    } catch (IllegalStateException e) {
                        throw new CheckpointCorruptedException(e.getMessage(), e);
                    }
                }
            }
            catalogue.reserveIdsBelow(manifest.nextCacheId());
        }
        return CheckpointLoader.load(wal.directory(), manifest, id -> CacheCatalogue.partitionsOf(catalogue.byId(id)),
                config.applyThreads(), checkpoints);
    }
}
