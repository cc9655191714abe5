package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PartitionStoreConcurrencyTest {

    /** A value that names its key and version and checks itself: any torn or foreign row shows. */
    private static byte[] value(int key, int version) {
        int size = 16 + (key * 31 + version * 17) % 1500;
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(key).putInt(version).putInt(size);
        for (int i = 12; i < size; i++) {
            b.put((byte) (key + version + i));
        }
        return b.array();
    }

    private static void check(byte[] key, byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        int k = b.getInt();
        int version = b.getInt();
        assertThat(k).isEqualTo(ByteBuffer.wrap(key).getInt());
        assertThat(v).isEqualTo(value(k, version));
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    @Test
    void readersScanWhileOneWriterPerPartitionWrites() throws Exception {
        int partitions = 4;
        int keys = 2000;
        try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 256L << 20))) {
            List<PartitionStore> stores = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                stores.add(region.createPartition());
            }
            ExecutorService pool = Executors.newFixedThreadPool(partitions + 2);
            try {
                AtomicBoolean writing = new AtomicBoolean(true);
                List<Future<?>> writers = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    PartitionStore store = stores.get(p);
                    writers.add(pool.submit(() -> {
                        for (int version = 0; version < 7; version++) {
                            for (int i = 0; i < keys; i++) {
                                byte[] k = key(i);
                                if (version % 3 == 2 && i % 3 == 0) {
                                    store.remove(k, 0, k.length);
                                } else {
                                    byte[] v = value(i, version);
                                    store.put(k, 0, k.length, v, 0, v.length);
                                }
                            }
                        }
                        return null;
                    }));
                }
                List<Future<Integer>> readers = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    readers.add(pool.submit(() -> {
                        int scans = 0;
                        do {
                            for (PartitionStore store : stores) {
                                StoreCursor cursor = store.cursor();
                                int last = -1;
                                while (cursor.next()) {
                                    int k = ByteBuffer.wrap(cursor.key()).getInt();
                                    assertThat(k).isGreaterThan(last);
                                    last = k;
                                    check(cursor.key(), cursor.value());
                                }
                                byte[] k = key(scans % keys);
                                byte[] v = store.get(k, 0, k.length);
                                if (v != null) {
                                    check(k, v);
                                }
                            }
                            scans++;
                        } while (writing.get());
                        return scans;
                    }));
                }
                for (Future<?> w : writers) {
                    w.get(50, TimeUnit.SECONDS);
                }
                writing.set(false);
                for (Future<Integer> r : readers) {
                    assertThat(r.get(50, TimeUnit.SECONDS)).isPositive();
                }
                for (PartitionStore store : stores) {
                    assertThat(store.size()).isEqualTo(keys);
                    for (int i = 0; i < keys; i++) {
                        byte[] k = key(i);
                        assertThat(store.get(k, 0, k.length)).isEqualTo(value(i, 6));
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** Batches (upserts with removals) on several partitions at once, single-row reads alongside. */
    @Test
    void batchesOnSeveralPartitionsShareDataPagesWithoutLostOrTornRows() throws Exception {
        int partitions = 3;
        int keys = 3000;
        int versions = 8;
        try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 256L << 20))) {
            List<PartitionStore> stores = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                stores.add(region.createPartition());
            }
            ExecutorService pool = Executors.newFixedThreadPool(partitions + 1);
            try {
                AtomicBoolean writing = new AtomicBoolean(true);
                List<Future<?>> writers = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    PartitionStore store = stores.get(p);
                    writers.add(pool.submit(() -> {
                        GrowableBuffer out = new GrowableBuffer(1 << 16);
                        for (int version = 0; version < versions; version++) {
                            for (int from = 0; from < keys; from += 500) {
                                out.reset();
                                int count = 0;
                                for (int i = from; i < Math.min(keys, from + 500); i++) {
                                    boolean remove = version % 4 == 2 && i % 3 == 0;
                                    EntryBatch.append(out, key(i), remove ? null : value(i, version));
                                    count++;
                                }
                                store.applyBatch(new EntryBatch(out.array(), out.position(), count), BatchMode.UPSERT);
                            }
                        }
                        return null;
                    }));
                }
                Future<Integer> reader = pool.submit(() -> {
                    int reads = 0;
                    do {
                        for (PartitionStore store : stores) {
                            byte[] k = key(reads % keys);
                            byte[] v = store.get(k, 0, k.length);
                            if (v != null) {
                                check(k, v);
                            }
                        }
                        reads++;
                    } while (writing.get());
                    return reads;
                });
                for (Future<?> w : writers) {
                    w.get(50, TimeUnit.SECONDS);
                }
                writing.set(false);
                assertThat(reader.get(50, TimeUnit.SECONDS)).isPositive();
                for (PartitionStore store : stores) {
                    assertThat(store.size()).isEqualTo(keys);
                    StoreCursor cursor = store.cursor();
                    for (int i = 0; i < keys; i++) {
                        assertThat(cursor.next()).isTrue();
                        assertThat(cursor.key()).isEqualTo(key(i));
                        assertThat(cursor.value()).isEqualTo(value(i, versions - 1));
                    }
                    assertThat(cursor.next()).isFalse();
                }
                for (PartitionStore store : stores) {
                    store.destroy();
                }
                assertThat(region.usedPages()).isZero();
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
