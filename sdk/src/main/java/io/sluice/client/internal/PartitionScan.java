package io.sluice.client.internal;

import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * One partition's entries of a {@link RemoteCache}, paged (SCAN) from a node as the stream reaches them, in key
 * order. The pages come from the partition's owner; for a cache whose scans may read from backups, from one of the
 * partition's copies (owner or a backup, picked once per scan so that scans spread over them). A page refused or
 * not answered goes, through {@link RoutedCall}, to the owner of the refreshed map, and so does the rest of the
 * scan; a change of node resumes after the last key seen. Used by the thread that consumes the stream.
 *
 * <p>Read ahead: a page's answer asks for the next page of the partition at once (after its last key, as the stream
 * would once it got there), and {@link #start()} asks for the first page before the stream reaches the partition
 * ({@link ScanAhead}), so the stream waits for a round trip only when it outruns them. A scan holds at most two
 * pages: the one being read and the one asked for.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class PartitionScan<K, V> extends Spliterators.AbstractSpliterator<Map.Entry<K, V>> {

    /** Entries a scan asks for per request. */
    static final int PAGE = 1024;

    private final RemoteCache<K, V> cache;
    private final int partition;
    private final Nodes nodes;
    private final Routing routing;
    /** Which of the partition's copies this scan reads from, when it may read from backups. */
    private final int pick = ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE);
    /** Set once a copy refused or was unreachable (or the cache is read from owners only): owners serve the rest. */
    private volatile boolean ownerOnly;
    /** The node that answered the last page. */
    private String node;
    private List<byte[]> page = List.of();
    private int next;
    private boolean more = true;
    private byte[] after;
    /** The next page, asked for before the stream reached it; null if none is under way. */
    private CompletableFuture<Page> ahead;

    /** @param fromBackups whether the pages may come from a backup ({@code CacheConfig.readFromBackup}) */
    PartitionScan(RemoteCache<K, V> cache, int partition, Nodes nodes, Routing routing, boolean fromBackups) {
        super(Long.MAX_VALUE, Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.DISTINCT);
        this.cache = cache;
        this.partition = partition;
        this.nodes = nodes;
        this.routing = routing;
        this.ownerOnly = !fromBackups;
    }

    @Override
    @SuppressWarnings("unchecked")
    public boolean tryAdvance(Consumer<? super Map.Entry<K, V>> action) {
        if (next == page.size()) {
            if (!more) {
                return false;
            }
            fetch();
            if (page.isEmpty()) {
                return false;
            }
        }
        byte[] key = page.get(next++);
        byte[] value = page.get(next++);
        after = key;
        action.accept(new AbstractMap.SimpleImmutableEntry<>((K) cache.decode(node, key), (V) cache.decode(node, value)));
        return true;
    }

    /** Asks for the partition's first page now, before the stream reaches it (does nothing once asked). */
    void start() {
        if (ahead == null && more && page.isEmpty() && after == null) {
            ahead = request(null);
        }
    }

    private void fetch() {
        CompletableFuture<Page> asked = ahead != null ? ahead : request(after);
        ahead = null;
        Page answer = nodes.await(asked);
        node = answer.node();
        page = answer.entries();
        next = 0;
        more = answer.more();
        if (more && !page.isEmpty()) { // the next page, after this one's last key: on its way while this one is read
            ahead = request(page.get(page.size() - 2));
        }
    }

    /** The page after {@code from} (exclusive; null: from the start), from the copy the routing picks. */
    private CompletableFuture<Page> request(byte[] from) {
        int partitions = cache.partitionCount();
        return RoutedCall.<Page>send(routing, nodes, "scan of cache '" + cache.name() + "'",
                new int[]{partition}, partitions,
                p -> ownerOnly ? routing.owner(p, partitions) : routing.reader(p, partitions, pick),
                (copy, items) -> page(copy, from).whenComplete((answered, error) -> {
                    if (error != null) {
                        ownerOnly = true; // the retry, after the map is asked again, goes to the owner
                    }
                }).thenApply(Collections::singletonList), null, null).thenApply(answers -> answers.get(0));
    }

    /** A page: keys and values alternating, whether more follow, and the node that sent them. */
    private record Page(List<byte[]> entries, boolean more, String node) {
    }

    /** One page of the partition from a node, after the key {@code from} (exclusive; null: from the start). */
    private CompletableFuture<Page> page(String copy, byte[] from) {
        return nodes.call(copy, false,
                c -> Frames.request(c.alloc(), Op.SCAN, out -> {
                    Wire.writeString(out, cache.name());
                    out.writeInt(partition);
                    out.writeByte(from == null ? 0 : 1);
                    if (from != null) {
                        Wire.writeBlob(out, from, 0, from.length);
                    }
                    out.writeInt(PAGE);
                }), body -> {
                    int n = Wire.readCount(body, 8, "entry");
                    List<byte[]> entries = new ArrayList<>(2 * n);
                    for (int i = 0; i < 2 * n; i++) {
                        entries.add(Wire.readBlob(body, "scanned bytes"));
                    }
                    return new Page(entries, Wire.readByte(body, "more") != 0, copy);
                }, cache.name());
    }
}
