package io.sluice.node.internal;

import io.sluice.protocol.internal.EntryBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys that recovery replayed from the log after the last checkpoint's mark, per cache and partition:
 * the changes a write-behind store may not have confirmed when the node stopped. They are handed back when
 * the cache is put in front of its store again ({@link NodeEngine#getOrCreateCache}) and queued anew.
 *
 * <p>Up to {@code memoryBytes} of keys are kept in the heap; past it the keys go to a spill file (in the log's
 * directory), read back in chunks when the cache takes them and deleted once every cache that has keys there
 * took or forgot them (and at start, if a previous run left one). So no key is dropped, whatever the length of
 * the log replayed. Thread-safe (recovery adds from its reading thread; caches take theirs later from others).
 *
 * <pre>
 * in the heap, per partition, a run of:   offset  size  field
 *                                         0       4     key length n (big-endian)
 *                                         4       n     key bytes
 *
 * in the spill file, a run of:            offset  size  field
 *                                         0       4     cache id
 *                                         4       4     partition
 *                                         8       4     key length n
 *                                         12      n     key bytes
 * </pre>
 */
final class RecoveredKeys implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RecoveredKeys.class);

    /** The spill file's name in the log's directory. */
    static final String SPILL_FILE = "recovered-keys.spill";
    /** Keys read back from the spill file at a time, at most (bytes). */
    static final int SPILL_CHUNK_BYTES = 8 << 20;
    private static final int SPILL_HEADER = 12;

    /** One cache's replayed keys: those in the heap per partition, and whether more are in the spill file. */
    static final class CacheKeys {
        private final int cacheId;
        private final byte[][] runs;
        private final int[] lengths;
        private boolean spilled;

        CacheKeys(int cacheId, int partitions) {
            this.cacheId = cacheId;
            runs = new byte[partitions][];
            lengths = new int[partitions];
        }

        /** The partition's keys held in the heap, in replay order (a key may repeat). */
        List<byte[]> keys(int partition) {
            List<byte[]> keys = new ArrayList<>();
            byte[] run = runs[partition];
            for (int at = 0; at < lengths[partition]; ) {
                int n = (run[at] & 0xFF) << 24 | (run[at + 1] & 0xFF) << 16 | (run[at + 2] & 0xFF) << 8 | (run[at + 3] & 0xFF);
                keys.add(Arrays.copyOfRange(run, at + 4, at + 4 + n));
                at += 4 + n;
            }
            return keys;
        }

        int partitions() {
            return runs.length;
        }

        /** Whether some of the cache's keys are in the spill file ({@link RecoveredKeys#readSpilled}). */
        boolean spilled() {
            return spilled;
        }

        int cacheId() {
            return cacheId;
        }
    }

    /** Takes a chunk of one partition's spilled keys. */
    interface SpilledKeys {
        void accept(int partition, List<byte[]> keys);
    }

    private final long memoryBytes;
    private final Path spillFile;
    private final Map<Integer, CacheKeys> byCache = new HashMap<>();
    /** Caches with keys in the spill file not read back yet; the file goes when none is left. */
    private final Set<Integer> spilledCaches = new HashSet<>();
    private long bytes;
    private FileChannel spill; // open for writing while recovery spills
    private ByteBuffer spillBuffer;

    /**
     * @param memoryBytes heap for keys, at most
     * @param spillFile   where keys past it go; a file left there by an earlier run is deleted now
     */
    RecoveredKeys(long memoryBytes, Path spillFile) {
        this.memoryBytes = memoryBytes;
        this.spillFile = spillFile;
        try {
            Files.deleteIfExists(spillFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the recovered keys' spill file " + spillFile, e);
        }
    }

    /** For a node without persistence: nothing is ever recovered. */
    static RecoveredKeys none() {
        return new RecoveredKeys();
    }

    private RecoveredKeys() {
        this.memoryBytes = 0;
        this.spillFile = null;
    }

    /**
     * Notes the keys of a replayed batch.
     *
     * @throws UncheckedIOException if the spill file cannot be written (recovery stops: a key would be lost)
     */
    synchronized void add(int cacheId, int partitions, int partition, EntryBatch batch) {
        CacheKeys cache = byCache.computeIfAbsent(cacheId, id -> new CacheKeys(id, partitions));
        byte[] data = batch.data();
        for (int i = 0; i < batch.size(); i++) {
            int n = batch.keyLength(i);
            if (bytes + 4 + n > memoryBytes) {
                spill(cache, partition, data, batch.keyOffset(i), n);
                continue;
            }
            byte[] run = cache.runs[partition];
            int length = cache.lengths[partition];
            if (run == null || length + 4 + n > run.length) {
                run = Arrays.copyOf(run == null ? new byte[0] : run, Math.max(256, Math.max(run == null ? 0 : run.length * 2,
                        length + 4 + n)));
                cache.runs[partition] = run;
            }
            run[length] = (byte) (n >>> 24);
            run[length + 1] = (byte) (n >>> 16);
            run[length + 2] = (byte) (n >>> 8);
            run[length + 3] = (byte) n;
            System.arraycopy(data, batch.keyOffset(i), run, length + 4, n);
            cache.lengths[partition] = length + 4 + n;
            bytes += 4 + n;
        }
    }

    private void spill(CacheKeys cache, int partition, byte[] data, int offset, int n) {
        try {
            if (spill == null) {
                spill = FileChannel.open(spillFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND);
                spillBuffer = ByteBuffer.allocate(1 << 16);
                LOG.info("recovery replays more than {} bytes of keys for write-behind stores; the rest go to {}",
                        memoryBytes, spillFile);
            }
            if (spillBuffer.remaining() < SPILL_HEADER + n) {
                flushSpill();
                if (spillBuffer.capacity() < SPILL_HEADER + n) {
                    spillBuffer = ByteBuffer.allocate(SPILL_HEADER + n);
                }
            }
            spillBuffer.putInt(cache.cacheId).putInt(partition).putInt(n).put(data, offset, n);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the recovered keys' spill file " + spillFile, e);
        }
        cache.spilled = true;
        spilledCaches.add(cache.cacheId);
    }

    private void flushSpill() throws IOException {
        spillBuffer.flip();
        while (spillBuffer.hasRemaining()) {
            spill.write(spillBuffer);
        }
        spillBuffer.clear();
    }

    /**
     * Recovery has replayed everything: the spill file, if any, is written out and closed for reading.
     *
     * @throws UncheckedIOException if it cannot be written
     */
    synchronized void recovered() {
        if (spill == null) {
            return;
        }
        try (FileChannel written = spill) {
            flushSpill();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the recovered keys' spill file " + spillFile, e);
        } finally {
            spill = null;
            spillBuffer = null;
        }
    }

    /** Whether recovery replayed keys of the cache that are not taken yet. */
    synchronized boolean holds(int cacheId) {
        return byCache.containsKey(cacheId);
    }

    /** Forgets a cache (dropped, or no store will take its keys). */
    synchronized void forget(int cacheId) {
        release(byCache.remove(cacheId));
        doneWithSpill(cacheId);
    }

    /** The cache's keys, handed over once; null if recovery replayed none. Read its spilled ones with readSpilled. */
    synchronized CacheKeys take(int cacheId) {
        CacheKeys keys = byCache.remove(cacheId);
        release(keys);
        return keys;
    }

    /**
     * Reads back the cache's spilled keys, in chunks of at most {@value #SPILL_CHUNK_BYTES} bytes, each handed
     * over per partition in replay order; then the cache is done with the spill file.
     *
     * @throws UncheckedIOException if the file cannot be read
     */
    void readSpilled(CacheKeys keys, SpilledKeys each) {
        if (!keys.spilled) {
            return;
        }
        Map<Integer, List<byte[]>> chunk = new HashMap<>();
        long chunkBytes = 0;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(spillFile), 1 << 16))) {
            while (true) {
                int cacheId;
                try {
                    cacheId = in.readInt();
                } catch (EOFException end) {
                    break;
                }
                int partition = in.readInt();
                int n = in.readInt();
                if (cacheId != keys.cacheId) {
                    in.skipNBytes(n);
                    continue;
                }
                byte[] key = new byte[n];
                in.readFully(key);
                chunk.computeIfAbsent(partition, p -> new ArrayList<>()).add(key);
                chunkBytes += 4 + n;
                if (chunkBytes >= SPILL_CHUNK_BYTES) {
                    chunk.forEach(each::accept);
                    chunk.clear();
                    chunkBytes = 0;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the recovered keys' spill file " + spillFile, e);
        }
        chunk.forEach(each::accept);
        synchronized (this) {
            doneWithSpill(keys.cacheId);
        }
    }

    private void doneWithSpill(int cacheId) {
        if (spilledCaches.remove(cacheId) && spilledCaches.isEmpty()) {
            deleteSpill();
        }
    }

    private void deleteSpill() {
        if (spillFile == null) {
            return;
        }
        try {
            Files.deleteIfExists(spillFile);
        } catch (IOException e) {
            LOG.warn("cannot delete the recovered keys' spill file {}: {}", spillFile, e.toString());
        }
    }

    /** The node closes: a spill file left is deleted (the next start replays the same log and writes it anew). */
    @Override
    public synchronized void close() {
        if (spill != null) {
            try {
                spill.close();
            } catch (IOException e) {
                LOG.debug("closing {}: {}", spillFile, e.toString());
            }
            spill = null;
        }
        deleteSpill();
    }

    private void release(CacheKeys keys) {
        if (keys != null) {
            for (int length : keys.lengths) {
                bytes -= length;
            }
        }
    }
}
