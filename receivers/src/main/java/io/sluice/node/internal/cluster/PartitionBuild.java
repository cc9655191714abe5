package io.sluice.node.internal.cluster;

import io.sluice.CacheNotFoundException;
import io.sluice.node.ClusterConfig;
import io.sluice.node.internal.PartitionAdoption;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Builds one partition of some caches on this node from another member: what a takeover ({@link PartitionTakeover})
 * and a backup catching up ({@link BackupReplication}) call. By {@link ClusterConfig.MoveMethod#ENTRIES} it pulls
 * the entries ({@link PartitionPull}). By {@link ClusterConfig.MoveMethod#FILES}, cache by cache: the partition's
 * file is fetched from {@code from} ({@link PartitionFileFetch}) into the moves directory and adopted
 * ({@link PartitionAdoption#adopt}); a fetch or adoption that fails (the member gone or silent, a check failed, this
 * node's disk full, refused) deletes the file and is tried from each other copy of the partition the map names that
 * is in sync (for a cache with backups: a cache without has its entries on the last owner only), then the cache's
 * entries are pulled from {@code from}. Each fallback is logged with its reason. Nothing is served meanwhile: the
 * caller serves the partition only after this returned. The caller holds the partition's move lock.
 */
final class PartitionBuild {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionBuild.class);

    private final String self;
    private final ClusterConfig.MoveMethod method;
    private final PartitionPull pull;
    private final PartitionFileFetch fetch;
    /** Null: this node cannot adopt files (everything moves by entries). */
    private final PartitionAdoption adoption;
    private final LocalPartitions local;
    private final Supplier<ClusterMap> map;

    PartitionBuild(String self, ClusterConfig.MoveMethod method, PartitionPull pull, PartitionFileFetch fetch,
                   PartitionAdoption adoption, LocalPartitions local, Supplier<ClusterMap> map) {
        this.self = self;
        this.method = method;
        this.pull = pull;
        this.fetch = fetch;
        this.adoption = adoption;
        this.local = local;
        this.map = map;
    }

    /**
     * As {@link PartitionPull#pull}: returns once the caches' partition here is a copy of the member's, durable.
     *
     * @throws PartitionPull.Cancelled if {@code cancelled} said so (the copy may be partial)
     * @throws RuntimeException        if the entries could not be pulled either (the copy is partial)
     */
    PartitionPull.Moved build(int partition, ClusterMap.Member from, Predicate<String> caches,
                              BooleanSupplier cancelled) {
        if (method == ClusterConfig.MoveMethod.ENTRIES || adoption == null) {
            return pull.pull(partition, from, caches, cancelled);
        }
        long entries = 0;
        long bytes = 0;
        long stale = 0;
        for (String cache : local.caches()) {
            if (!caches.test(cache)) {
                continue;
            }
            if (cancelled.getAsBoolean()) {
                throw new PartitionPull.Cancelled();
            }
            PartitionPull.Moved moved = byFile(partition, from, cache, cancelled);
            if (moved == null) {
                moved = pull.pull(partition, from, cache::equals, cancelled);
            }
            entries += moved.entries();
            bytes += moved.bytes();
            stale += moved.stale();
        }
        return new PartitionPull.Moved(entries, bytes, stale);
    }

    /** The cache's partition by file from the first copy that sends it whole, or null if none did. */
    private PartitionPull.Moved byFile(int partition, ClusterMap.Member from, String cache,
                                       BooleanSupplier cancelled) {
        List<ClusterMap.Member> copies = new ArrayList<>();
        copies.add(from);
        if (local.replicated(cache)) {
            copies.addAll(otherCopies(partition, from));
        }
        for (int i = 0; i < copies.size(); i++) {
            ClusterMap.Member m = copies.get(i);
            String reason;
            try {
                return fetchAndAdopt(partition, m, cache, i > 0, cancelled);
            } catch (PartitionFileFetch.Refused e) {
                if (e.kind == ErrorKind.CACHE_NOT_FOUND && i == 0) {
                    // Created after that member left it, or destroyed since: nothing of it there; the copy here
                    // must not outlive the move (as a pull would leave it).
                    return new PartitionPull.Moved(0, 0, local.clear(partition, cache::equals));
                }
                reason = e.getMessage();
            } catch (PartitionFileFetch.Cancelled e) {
                throw new PartitionPull.Cancelled();
            } catch (IOException | RuntimeException e) {
                reason = e.toString();
            }
            boolean last = i == copies.size() - 1;
            LOG.warn("partition {} of cache '{}': moving it as a file from '{}' at {} failed, {}: {}", partition, cache,
                    m.id(), m.address(), last ? "pulling its entries from '" + from.id() + "' instead"
                            : "trying its copy on '" + copies.get(i + 1).id() + "'", reason);
        }
        return null;
    }

    private PartitionPull.Moved fetchAndAdopt(int partition, ClusterMap.Member m, String cache, boolean inSyncOnly,
                                              BooleanSupplier cancelled) throws IOException {
        Path file = adoption.incomingFile(cache, partition);
        boolean adopted = false;
        try {
            long t0 = System.nanoTime();
            PartitionFileWire.Header header = fetch.fetch(m, cache, partition, inSyncOnly, file, cancelled);
            long before = local.size(partition, cache);
            adopted = true; // adopt consumes the file whatever its outcome
            long t1 = System.nanoTime();
            long loaded = adoption.adopt(cache, partition, file);
            LOG.debug("partition {} of cache '{}': {} bytes fetched from '{}' in {} ms, {} entries adopted in {} ms",
                    partition, cache, header.length(), m.id(), (t1 - t0) / 1_000_000, loaded,
                    (System.nanoTime() - t1) / 1_000_000);
            if (loaded != header.entries()) {
                throw new IOException("the file held " + header.entries() + " entries, " + loaded + " were loaded");
            }
            return new PartitionPull.Moved(loaded, header.length(), before);
        } finally {
            if (!adopted) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** The partition's other copies in the map (owner and backups), neither this node nor {@code from}. */
    private List<ClusterMap.Member> otherCopies(int partition, ClusterMap.Member from) {
        ClusterMap m = map.get();
        List<ClusterMap.Member> others = new ArrayList<>();
        if (partition >= m.partitions()) {
            return others;
        }
        List<Integer> indexes = new ArrayList<>();
        indexes.add(m.ownerIndex(partition));
        for (int i = 0; i < m.backupCount(partition); i++) {
            indexes.add(m.backupIndex(partition, i));
        }
        for (int index : indexes) {
            if (index < 0) {
                continue;
            }
            ClusterMap.Member member = m.nodes().get(index);
            if (!member.id().equals(self) && !member.id().equals(from.id()) && !others.contains(member)) {
                others.add(member);
            }
        }
        return others;
    }
}
