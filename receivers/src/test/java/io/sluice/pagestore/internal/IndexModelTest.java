package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.FieldLocator;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.pagestore.internal.index.IndexKeys;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.query.internal.IndexPage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Field indexes against a model: the entries in a {@link TreeMap}, each index's expected content a TreeMap from
 * the index key built from the model's Java field values (encoded one by one, not read from the stored bytes)
 * to the entry's key. Random batches in both modes (duplicates and removals included), entry-by-entry batches,
 * puts, puts-if-absent, removals, in-place rewrites of indexed and other fields, skip-store writes, an index
 * dropped and created again over the rows, and restarts (a checkpoint's copy loaded into a fresh region, then
 * the journal's records since replayed). Every scan (random bounds, prefixes, exclusive and inclusive, paged
 * with {@code after}) equals the model's answer. The seed is printed; replay with {@code -Dsluice.seed=N}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(Seeds.class)
class IndexModelTest {

    private static final List<IndexSpec> SPECS = List.of(new IndexSpec(1, List.of("sec")),
            new IndexSpec(2, List.of("account", "price")), new IndexSpec(5, List.of("price")));
    private static final String[] SECS = {"SBER", "GAZP", "LKOH", "A", "AB", "ABC", "YNDX"};

    @ParameterizedTest
    @ValueSource(ints = {1024, 4096})
    void indexesMatchTheModelUnderRandomWrites(int pageSize) {
        long seed = Seeds.fresh();
        System.out.println("IndexModelTest seed " + seed + " (replay with -Dsluice.seed=" + seed + ")");
        new Run(seed, pageSize).run(4_000);
    }

    @Test
    void fixedSeedsMatchTheModel() {
        for (long seed = 1; seed <= 2; seed++) {
            new Run(seed, 1024).run(2_500);
        }
    }

    /** One model run: the store, its journal's records, the model. */
    private static final class Run {
        final long seed;
        final int pageSize;
        final Random random;
        final StoreModel keys;
        final BinaryContext binary = new BinaryContext();
        /** Entry key to value bytes; and to the Java fields of a binary value (absent: not an object). */
        final TreeMap<byte[], byte[]> values = new TreeMap<>(Arrays::compareUnsigned);
        final Map<ByteKey, Map<String, Object>> fields = new HashMap<>();
        final List<Object[]> journal = new ArrayList<>(); // {batch bytes, count, mode} or {key, value, mode}
        DataRegion region;
        PartitionStore store;
        EntryImage checkpoint = new EntryImage();
        int checkpointAt;

        Run(long seed, int pageSize) {
            this.seed = seed;
            this.pageSize = pageSize;
            this.random = new Random(seed);
            this.keys = new StoreModel(seed ^ 0x5DEECE66DL, 1);
        }

        void run(int ops) {
            region = new DataRegion(new DataRegionConfig(pageSize, 0, 16L << 20), binary);
            try {
                store = region.createPartition(recorder(), SPECS);
                checkpoint();
                for (int op = 0; op < ops; op++) {
                    String at = "seed " + seed + ", op " + op;
                    int kind = random.nextInt(100);
                    if (kind < 30) {
                        batch(at);
                    } else if (kind < 48) {
                        put(random.nextBoolean());
                    } else if (kind < 60) {
                        remove();
                    } else if (kind < 77) {
                        rewriteInPlace();
                    } else if (kind < 95) {
                        queryRandomly(at);
                    } else if (kind < 98) {
                        checkpoint();
                    } else if (kind < 99) {
                        restart(at);
                    } else {
                        int id = SPECS.get(random.nextInt(SPECS.size())).id();
                        store.index().drop(id);
                        store.index().create(SPECS.stream().filter(s -> s.id() == id).findFirst().orElseThrow());
                    }
                }
                for (IndexSpec spec : SPECS) {
                    assertScan("seed " + seed + ", end", spec, null, true, null, true, 1 + random.nextInt(40));
                }
                restart("seed " + seed + ", last restart");
                for (IndexSpec spec : SPECS) {
                    assertScan("seed " + seed + ", after the last restart", spec, null, true, null, true, 1000);
                }
                ConsistencyCheckTest.assertConsistent(region, "seed " + seed);
                store.destroy();
                assertThat(region.usedPages()).as("seed " + seed + ": pages in use after destroy").isZero();
            } finally {
                region.close();
            }
        }

        // ---- writes, each mirrored in the model

        private void batch(String at) {
            int n = 1 + random.nextInt(random.nextInt(10) == 0 ? 600 : 60);
            BatchMode mode = random.nextBoolean() ? BatchMode.UPSERT : BatchMode.INSERT_IF_ABSENT;
            GrowableBuffer out = new GrowableBuffer(1024);
            LinkedHashMap<ByteKey, Object[]> last = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                byte[] key = keys.key(400);
                Object[] value = random.nextInt(8) == 0 ? null : newValue();
                EntryBatch.append(out, key, value == null ? null : (byte[]) value[0]);
                last.remove(new ByteKey(key));
                last.put(new ByteKey(key), value);
            }
            EntryBatch batch = new EntryBatch(out.array(), out.position(), n);
            if (random.nextInt(5) == 0) {
                RowByRowBaseline.apply(store, batch, mode); // not a node path: the journal is not told
                journal.add(new Object[] {Arrays.copyOf(out.array(), out.position()), n, mode});
            } else {
                (random.nextInt(6) == 0 ? store.skippingStore() : store).applyBatch(batch, mode);
            }
            for (Map.Entry<ByteKey, Object[]> e : last.entrySet()) {
                byte[] key = e.getKey().bytes;
                Object[] v = e.getValue();
                if (v == null) {
                    forget(key);
                } else if (mode == BatchMode.UPSERT || !values.containsKey(key)) {
                    remember(key, v);
                }
            }
        }

        private void put(boolean overwrite) {
            byte[] key = keys.key(400);
            Object[] v = newValue();
            byte[] bytes = (byte[]) v[0];
            PartitionStore target = random.nextInt(6) == 0 ? store.skippingStore() : store;
            if (overwrite) {
                target.put(key, 0, key.length, bytes, 0, bytes.length);
                remember(key, v);
            } else if (target.putIfAbsent(key, 0, key.length, bytes, 0, bytes.length)) {
                remember(key, v);
            }
        }

        private void remove() {
            byte[] key = random.nextBoolean() || values.isEmpty() ? keys.key(400) : randomStoredKey();
            store.remove(key, 0, key.length);
            forget(key);
        }

        /** Rewrites one field's bytes in place (same length) through {@link PartitionStore#update}. */
        private void rewriteInPlace() {
            if (values.isEmpty()) {
                return;
            }
            byte[] key = randomStoredKey();
            Map<String, Object> f = fields.get(new ByteKey(key));
            if (f == null) {
                return; // not an object
            }
            List<String> candidates = new ArrayList<>();
            for (String name : List.of("sec", "account", "price", "qty")) {
                Object old = f.get(name);
                if (old != null && (!(old instanceof String s) || s.length() == 4)) {
                    candidates.add(name);
                }
            }
            if (candidates.isEmpty()) {
                return;
            }
            String name = candidates.get(random.nextInt(candidates.size()));
            Object newValue = switch (name) {
                case "sec" -> new String[] {"SBER", "GAZP", "LKOH", "YNDX"}[random.nextInt(4)];
                case "account" -> (long) random.nextInt(30);
                case "price" -> (double) random.nextInt(20) / 4;
                default -> random.nextInt(1000);
            };
            byte[] bytes = values.get(key).clone();
            BinaryObject object = (BinaryObject) binary.decode(bytes, 0, bytes.length, true);
            long range = FieldLocator.locate(object, name);
            byte[] encoded = encode(newValue);
            assertThat(encoded.length).isEqualTo(FieldLocator.end(range) - FieldLocator.start(range));
            store.update(entry -> {
                entry.at(key, 0, key.length);
                entry.overwriteValue(FieldLocator.start(range), encoded, 0, encoded.length);
            });
            System.arraycopy(encoded, 0, bytes, FieldLocator.start(range), encoded.length);
            Map<String, Object> changed = new HashMap<>(f);
            changed.put(name, newValue);
            values.put(key, bytes);
            fields.put(new ByteKey(key), changed);
        }

        /** {bytes, fields or null}: objects of three schemas (one without sec, one without price), or not an object. */
        private Object[] newValue() {
            int shape = random.nextInt(10);
            if (shape == 0) { // not a binary object: an INT, or random bytes
                if (random.nextBoolean()) {
                    return new Object[] {encode(random.nextInt()), null};
                }
                byte[] b = new byte[random.nextInt(30)];
                random.nextBytes(b);
                if (b.length > 0 && b[0] == 0x20) {
                    b[0] = 0x21;
                }
                return new Object[] {b, null};
            }
            Map<String, Object> f = new LinkedHashMap<>();
            if (shape != 1) {
                f.put("sec", random.nextInt(15) == 0 ? null : SECS[random.nextInt(SECS.length)]);
            }
            f.put("account", random.nextInt(15) == 0 ? null : (long) random.nextInt(30) - 5);
            if (shape != 2) {
                f.put("price", (double) (random.nextInt(40) - 10) / 4);
            }
            f.put("qty", random.nextInt(1000));
            if (random.nextInt(6) == 0) { // a long value: rows in fragments
                f.put("note", "n".repeat(random.nextInt(3 * pageSize)));
            }
            BinaryObjectBuilder b = binary.builder("Order");
            for (Map.Entry<String, Object> e : f.entrySet()) {
                b.setField(e.getKey(), e.getValue());
            }
            return new Object[] {b.build().toBytes(), f};
        }

        @SuppressWarnings("unchecked")
        private void remember(byte[] key, Object[] v) {
            values.put(key, (byte[]) v[0]);
            if (v[1] == null) {
                fields.remove(new ByteKey(key));
            } else {
                fields.put(new ByteKey(key), (Map<String, Object>) v[1]);
            }
        }

        private void forget(byte[] key) {
            values.remove(key);
            fields.remove(new ByteKey(key));
        }

        private byte[] randomStoredKey() {
            byte[] probe = keys.key(400);
            byte[] k = values.ceilingKey(probe);
            return k != null ? k : values.firstKey();
        }

        // ---- checkpoint and restart, as the node does them

        private StoreJournal recorder() {
            return new StoreJournal() {
                private long changes;

                @Override
                public void batch(EntryBatch batch, BatchMode mode, boolean partial, boolean skipStore) {
                    byte[] copy = Arrays.copyOfRange(batch.data(), batch.base(), batch.base() + batch.length());
                    journal.add(new Object[] {copy, batch.size(), mode});
                    changes++;
                }

                @Override
                public void entry(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset,
                                  int valueLength, BatchMode mode, boolean skipStore) {
                    journal.add(new Object[] {Arrays.copyOfRange(key, keyOffset, keyOffset + keyLength),
                            value == null ? null : Arrays.copyOfRange(value, valueOffset, valueOffset + valueLength),
                            mode});
                    changes++;
                }

                @Override
                public long changes() {
                    return changes;
                }

                @Override
                public void checkWritable() {
                }
            };
        }

        private void checkpoint() {
            store.copyIfChanged(-1, checkpoint);
            checkpointAt = journal.size();
        }

        /** A fresh region: the partition with its indexes, the checkpoint's copy loaded, the journal since replayed. */
        private void restart(String at) {
            List<Object[]> since = new ArrayList<>(journal.subList(checkpointAt, journal.size()));
            region.close();
            region = new DataRegion(new DataRegionConfig(pageSize, 0, 16L << 20), binary);
            journal.clear();
            store = region.createPartition(recorder(), SPECS);
            store.applyBatch(new EntryBatch(checkpoint.data(), checkpoint.length(), checkpoint.count()),
                    BatchMode.INSERT_IF_ABSENT);
            for (Object[] r : since) {
                BatchMode mode = (BatchMode) r[2];
                if (r[1] instanceof Integer count) {
                    byte[] data = (byte[]) r[0];
                    store.applyBatch(new EntryBatch(data, data.length, count), mode);
                } else {
                    byte[] key = (byte[]) r[0];
                    byte[] value = (byte[]) r[1];
                    if (value == null) {
                        store.remove(key, 0, key.length);
                    } else if (mode == BatchMode.UPSERT) {
                        store.put(key, 0, key.length, value, 0, value.length);
                    } else {
                        store.putIfAbsent(key, 0, key.length, value, 0, value.length);
                    }
                }
            }
            assertThat(store.size()).as(at + ": entries after the restart").isEqualTo(values.size());
            checkpoint();
        }

        // ---- queries

        private void queryRandomly(String at) {
            IndexSpec spec = SPECS.get(random.nextInt(SPECS.size()));
            byte[] lower = random.nextInt(4) == 0 ? null : bound(spec);
            byte[] upper = random.nextInt(4) == 0 ? null : bound(spec);
            assertScan(at, spec, lower, random.nextBoolean(), upper, random.nextBoolean(), 1 + random.nextInt(80));
        }

        /** A bound: the encoding of a first field value, that and a second's (composite prefix), or a cut of one. */
        private byte[] bound(IndexSpec spec) {
            GrowableBuffer out = new GrowableBuffer(32);
            binary.encode(fieldValue(spec.fields().get(0)), out);
            if (spec.fields().size() > 1 && random.nextBoolean()) {
                binary.encode(fieldValue(spec.fields().get(1)), out);
            }
            byte[] b = out.toByteArray();
            if (random.nextInt(5) == 0 && b.length > 1) {
                b = Arrays.copyOf(b, 1 + random.nextInt(b.length - 1)); // e.g. a string's prefix
            }
            return b;
        }

        private Object fieldValue(String name) {
            return switch (name) {
                case "sec" -> SECS[random.nextInt(SECS.length)];
                case "account" -> (long) random.nextInt(34) - 7;
                default -> (double) (random.nextInt(44) - 12) / 4;
            };
        }

        /** Scans in pages of {@code page} entries (resuming with {@code after}) and compares with the model. */
        private void assertScan(String at, IndexSpec spec, byte[] lower, boolean lowerInclusive, byte[] upper,
                                boolean upperInclusive, int page) {
            List<String> expected = new ArrayList<>();
            for (Map.Entry<byte[], byte[]> e : expectedIndex(spec).entrySet()) {
                byte[] ik = e.getKey();
                if (lower != null) {
                    int c = prefixCompare(ik, lower);
                    if (c < 0 || (c == 0 && !lowerInclusive)) {
                        continue;
                    }
                }
                if (upper != null) {
                    int c = prefixCompare(ik, upper);
                    if (c > 0 || (c == 0 && !upperInclusive)) {
                        continue;
                    }
                }
                expected.add(describe(ik, e.getValue(), values.get(e.getValue())));
            }
            List<String> actual = new ArrayList<>();
            byte[][] after = {null};
            while (true) {
                int[] got = {0};
                store.index().scan(spec.id(), lower, lowerInclusive, upper, upperInclusive, after[0], (ik, key, value) -> {
                    actual.add(describe(ik, key, value));
                    after[0] = ik;
                    return ++got[0] < page;
                });
                if (got[0] < page) {
                    break;
                }
            }
            assertThat(actual).as(at + ": index " + spec + " lower " + hex(lower) + (lowerInclusive ? "]" : ")")
                    + " upper " + hex(upper) + (upperInclusive ? "]" : ")") + " pages of " + page)
                    .containsExactlyElementsOf(expected);
            // The same range read as a query reads it: pages of index keys and values (PartitionIndexAccess.page),
            // one page object refilled, each page resuming after the last index key of the one before.
            List<String> paged = new ArrayList<>();
            IndexPage p = new IndexPage(1);
            byte[] resume = null;
            while (true) {
                p.clear();
                boolean full = store.index().page(spec.id(), lower, lowerInclusive, upper, upperInclusive, resume, page, p);
                assertThat(p.size()).as(at + ": a page's size").isLessThanOrEqualTo(page);
                assertThat(full).as(at + ": full exactly when the page got what it asked for").isEqualTo(p.size() == page);
                for (int i = 0; i < p.size(); i++) {
                    paged.add(describe(p.indexKey(i), p.key(i), p.value(i)));
                }
                if (!full) {
                    break;
                }
                resume = p.indexKey(p.size() - 1);
            }
            assertThat(paged).as(at + ": index " + spec + " read in pages of " + page + " (page)")
                    .containsExactlyElementsOf(expected);
        }

        /** The index's expected content: index key (from the model's field values) to entry key. */
        private TreeMap<byte[], byte[]> expectedIndex(IndexSpec spec) {
            TreeMap<byte[], byte[]> index = new TreeMap<>(Arrays::compareUnsigned);
            for (byte[] key : values.keySet()) {
                Map<String, Object> f = fields.get(new ByteKey(key));
                if (f == null || !f.containsKey(spec.fields().get(0))) {
                    continue;
                }
                GrowableBuffer out = new GrowableBuffer(64);
                for (String name : spec.fields()) {
                    binary.encode(f.get(name), out); // a missing later field: null, tag 00
                }
                index.put(IndexKeys.indexKey(out.toByteArray(), key), key);
            }
            return index;
        }

        private byte[] encode(Object value) {
            GrowableBuffer out = new GrowableBuffer(16);
            binary.encode(value, out);
            return out.toByteArray();
        }
    }

    /** Compares the first {@code bound.length} bytes of the key with the bound (a key starting with it is equal). */
    static int prefixCompare(byte[] key, byte[] bound) {
        return Arrays.compareUnsigned(key, 0, Math.min(key.length, bound.length), bound, 0, bound.length);
    }

    private static String describe(byte[] indexKey, byte[] key, byte[] value) {
        return hex(indexKey) + " -> " + hex(key) + " = " + (value == null ? "null" : Arrays.hashCode(value) + "/"
                + value.length);
    }

    private static final java.util.HexFormat HEX = java.util.HexFormat.of();

    static String hex(byte[] b) {
        if (b == null) {
            return "open";
        }
        return HEX.formatHex(b);
    }

    /** A byte array as a hash key. */
    private record ByteKey(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ByteKey k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}
