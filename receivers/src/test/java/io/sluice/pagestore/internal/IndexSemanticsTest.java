package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.FieldLocator;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.pagestore.internal.index.UnknownIndexException;
import io.sluice.protocol.internal.EntryBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What an index scan returns for bounds, prefixes and {@code after}; which values are indexed; what writes cost. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IndexSemanticsTest {

    private static final IndexSpec SEC = new IndexSpec(1, List.of("sec"));
    private static final IndexSpec ACCOUNT_PRICE = new IndexSpec(2, List.of("account", "price"));

    private final BinaryContext binary = new BinaryContext();
    private DataRegion region;
    private PartitionStore store;

    @BeforeEach
    void open() {
        region = new DataRegion(new DataRegionConfig(1024, 0, 16L << 20), binary);
        store = region.createPartition(StoreJournal.NONE, List.of(SEC, ACCOUNT_PRICE));
    }

    @AfterEach
    void close() {
        region.close();
    }

    @Test
    void aPartitionWithoutIndexesKeepsNoIndexChangeScratch() {
        PartitionStore plain = region.createPartition();
        for (int i = 0; i < 10; i++) {
            plain.put(bytes("p" + i), 0, 2, order("S", i, i), 0, order("S", i, i).length);
        }
        plain.remove(bytes("p1"), 0, 2);
        assertThat(plain.madeIndexChanges()).isFalse(); // ~2 KB a partition, 1,024 partitions a cache
        assertThat(store.madeIndexChanges()).isFalse();

        put("k1", order("A", 1, 1.5));
        assertThat(store.madeIndexChanges()).isTrue();
        assertThat(keys(SEC, enc("A"), true, enc("A"), true)).containsExactly("k1");
    }

    @Test
    void equalityRangesAndStringPrefixesFollowTheBinaryOrder() {
        put("k1", order("A", 1, 1.5));
        put("k2", order("AB", 1, 2.5));
        put("k3", order("ABC", 2, 0.5));
        put("k4", order("B", 2, -1.0));
        put("k5", order("AB", 3, 2.5));

        // k2 and k5 share "AB": among themselves in their keys' hash order (IndexKeys)
        String[] ab = Integer.compareUnsigned(hash("k2"), hash("k5")) < 0
                ? new String[] {"k2", "k5"} : new String[] {"k5", "k2"};
        assertThat(keys(SEC, enc("AB"), true, enc("AB"), true)).containsExactly(ab[0], ab[1]);
        assertThat(keys(SEC, enc("AB"), false, null, true)).containsExactly("k3", "k4");
        assertThat(keys(SEC, enc("AB"), true, null, true)).containsExactly(ab[0], ab[1], "k3", "k4");
        assertThat(keys(SEC, null, true, enc("AB"), false)).containsExactly("k1");
        assertThat(keys(SEC, enc("A"), true, enc("ABC"), true)).containsExactly("k1", ab[0], ab[1], "k3");
        // a string's bytes without the terminator: every value starting with "A"
        byte[] a = {0x09, 'A'};
        assertThat(keys(SEC, a, true, a, true)).containsExactly("k1", ab[0], ab[1], "k3");
        assertThat(keys(SEC, a, false, null, true)).containsExactly("k4");
    }

    @Test
    void aCompositeIndexAnswersItsFirstFieldAsAPrefixInSecondFieldOrder() {
        put("a", order("X", 7, 3.0));
        put("b", order("X", 7, -2.0));
        put("c", order("X", 8, 0.0));
        put("d", order("X", 7, 1.0));
        put("e", order("X", 6, 9.0));

        assertThat(keys(ACCOUNT_PRICE, enc(7L), true, enc(7L), true)).containsExactly("b", "d", "a");
        byte[] from = concat(enc(7L), enc(0.0));
        assertThat(keys(ACCOUNT_PRICE, from, true, enc(7L), true)).containsExactly("d", "a");
        assertThat(keys(ACCOUNT_PRICE, enc(6L), false, enc(8L), false)).containsExactly("b", "d", "a");
    }

    @Test
    void afterResumesAPagedScanPastTheLastKeyReturned() {
        for (int i = 0; i < 25; i++) {
            put(String.format("k%02d", i), order(i % 2 == 0 ? "EVEN" : "ODD", i, i));
        }
        List<String> all = new ArrayList<>();
        byte[][] after = {null};
        int pages = 0;
        while (true) {
            int[] n = {0};
            store.index().scan(SEC.id(), enc("EVEN"), true, enc("EVEN"), true, after[0], (ik, key, value) -> {
                all.add(text(key));
                after[0] = ik;
                return ++n[0] < 4;
            });
            pages++;
            if (n[0] < 4) {
                break;
            }
        }
        // within one field value the order is the keys' hash order (IndexKeys): each entry once, none skipped
        assertThat(all).hasSize(13).doesNotHaveDuplicates()
                .allMatch(k -> Integer.parseInt(k.substring(1)) % 2 == 0);
        assertThat(pages).isEqualTo(4);
    }

    @Test
    void valuesThatAreNotObjectsOrLackTheFirstFieldAreNotIndexed() {
        put("int", enc(42));
        put("bytes", new byte[] {1, 2, 3});
        put("empty", new byte[0]);
        put("noSec", binary.builder("Order").setField("account", 5L).setField("price", 1.0).build().toBytes());
        put("noPrice", binary.builder("Order").setField("sec", "S").setField("account", 5L).build().toBytes());
        put("nullSec", binary.builder("Order").setField("sec", null).setField("account", 4L).build().toBytes());

        assertThat(keys(SEC, null, true, null, true)).containsExactly("nullSec", "noPrice");
        List<byte[]> indexKeys = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        store.index().scan(ACCOUNT_PRICE.id(), null, true, null, true, null, (ik, key, value) -> {
            indexKeys.add(ik);
            keys.add(text(key));
            return true;
        });
        assertThat(keys).containsExactly("nullSec", "noPrice", "noSec");
        // a missing later field of a composite is NULL (00): before every value of it
        assertThat(indexKeys.get(1)).startsWith(concat(enc(5L), new byte[] {0x00}));
        assertThat(keys(ACCOUNT_PRICE, concat(enc(5L), new byte[] {0x00}), true, concat(enc(5L), new byte[] {0x00}),
                true)).containsExactly("noPrice");
    }

    @Test
    void anInPlaceRewriteOfAnotherFieldTouchesNoIndexAndOfAnIndexedFieldMovesTheEntry() {
        byte[] value = order("SBER", 1, 2.0);
        put("k", value);
        long secBefore = store.indexes().changesApplied(SEC.id());
        long compositeBefore = store.indexes().changesApplied(ACCOUNT_PRICE.id());

        rewrite("k", value, "qty", enc(77));
        assertThat(store.indexes().changesApplied(SEC.id())).isEqualTo(secBefore);
        assertThat(store.indexes().changesApplied(ACCOUNT_PRICE.id())).isEqualTo(compositeBefore);

        rewrite("k", value, "sec", enc("GAZP"));
        assertThat(keys(SEC, enc("SBER"), true, enc("SBER"), true)).isEmpty();
        assertThat(keys(SEC, enc("GAZP"), true, enc("GAZP"), true)).containsExactly("k");
        assertThat(store.indexes().changesApplied(ACCOUNT_PRICE.id())).isEqualTo(compositeBefore);

        // a put of a value with the same indexed fields rewrites the row in place: no index changes either
        long secNow = store.indexes().changesApplied(SEC.id());
        put("k", order("GAZP", 1, 2.0));
        assertThat(store.indexes().changesApplied(SEC.id())).isEqualTo(secNow);
    }

    @Test
    void aBatchAndTheSameBatchEntryByEntryLeaveTheSameIndexes() {
        List<String> viaBatch;
        List<String> viaEntries;
        for (int pass = 0; pass < 2; pass++) {
            GrowableBuffer out = new GrowableBuffer(4096);
            int n = 0;
            for (int i = 0; i < 300; i++) {
                EntryBatch.append(out, bytes("k" + (i * 7919 % 100)), i % 11 == 0 ? null
                        : order(new String[] {"A", "B", "C"}[i % 3], i % 13, i % 5));
                n++;
            }
            EntryBatch batch = new EntryBatch(out.array(), out.position(), n);
            if (pass == 0) {
                store.applyBatch(batch, BatchMode.UPSERT);
            } else {
                RowByRowBaseline.apply(store, batch, BatchMode.UPSERT);
            }
        }
        viaBatch = keys(ACCOUNT_PRICE, null, true, null, true);
        store.destroy();
        store = region.createPartition(StoreJournal.NONE, List.of(SEC, ACCOUNT_PRICE));
        GrowableBuffer out = new GrowableBuffer(4096);
        for (int i = 0; i < 300; i++) {
            EntryBatch.append(out, bytes("k" + (i * 7919 % 100)), i % 11 == 0 ? null
                    : order(new String[] {"A", "B", "C"}[i % 3], i % 13, i % 5));
        }
        RowByRowBaseline.apply(store, new EntryBatch(out.array(), out.position(), 300), BatchMode.UPSERT);
        viaEntries = keys(ACCOUNT_PRICE, null, true, null, true);
        assertThat(viaBatch).isNotEmpty().isEqualTo(viaEntries);
        ConsistencyCheckTest.assertConsistent(region, "indexes");
    }

    @Test
    void createIsIdempotentDropFreesThePagesAndAnUnknownIndexIsNamed() {
        for (int i = 0; i < 500; i++) {
            put("k" + i, order("S" + i % 7, i, i));
        }
        long used = region.usedPages();
        IndexSpec price = new IndexSpec(9, List.of("price"));
        store.index().create(price);
        store.index().create(price);
        assertThat(keys(price, enc(3.0), true, enc(5.0), true)).containsExactly("k3", "k4", "k5");
        assertThat(store.index().ids()).containsExactly(1, 2, 9);
        assertThatThrownBy(() -> store.index().create(new IndexSpec(9, List.of("sec"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("index 9");
        ConsistencyCheckTest.assertConsistent(region, "with index 9");
        store.index().drop(9);
        assertThat(region.usedPages()).isEqualTo(used);
        assertThatThrownBy(() -> store.index().scan(9, null, true, null, true, null, (a, b, c) -> true))
                .isInstanceOf(UnknownIndexException.class).hasMessageContaining("no index 9");
        store.destroy();
        assertThat(region.usedPages()).isZero();
    }

    @Test
    void longFieldValuesGetWideItemsAndStayExactThroughBatchesThatMoveEntriesBetweenEqualValues() {
        // field parts of 22 bytes sharing 19: narrow items would tie on them and read rows; wide ones compare them
        String[] secs = {"SHARED-PREFIX-LONG-A", "SHARED-PREFIX-LONG-B", "SHARED-PREFIX-LONG-C"};
        java.util.Map<String, String> model = new java.util.TreeMap<>();
        for (int round = 0; round < 6; round++) {
            GrowableBuffer out = new GrowableBuffer(1 << 16);
            for (int i = 0; i < 400; i++) { // UPSERT: an entry that changes value leaves its old one in the same pass
                String key = "k" + (i * 7919 + round * 131) % 600;
                String sec = secs[(i + round) % 3];
                EntryBatch.append(out, bytes(key), order(sec, i % 13, i % 5));
                model.put(key, sec);
            }
            store.applyBatch(new EntryBatch(out.array(), out.position(), 400), BatchMode.UPSERT);
            for (String sec : secs) {
                List<String> expected = model.entrySet().stream().filter(e -> e.getValue().equals(sec))
                        .map(java.util.Map.Entry::getKey).sorted().toList();
                List<String> found = keys(SEC, enc(sec), true, enc(sec), true);
                assertThat(found).as("round %d, %s", round, sec).hasSameSizeAs(expected)
                        .containsExactlyInAnyOrderElementsOf(expected);
            }
        }
        assertThat(store.indexes().indexTree(SEC.id()).itemSize()).as("22-byte field parts")
                .isEqualTo(io.sluice.pagestore.internal.tree.TreePageIO.WIDE_ITEM);
        assertThat(store.indexes().indexTree(ACCOUNT_PRICE.id()).itemSize()).as("a long (9 bytes) then a double")
                .isEqualTo(io.sluice.pagestore.internal.tree.TreePageIO.WIDE_ITEM);
        ConsistencyCheckTest.assertConsistent(region, "wide index trees");
        for (String key : model.keySet()) { // emptied, the tree chooses again at its next write
            byte[] k = bytes(key);
            store.remove(k, 0, k.length);
        }
        put("short", order("S", 1, 1.0));
        assertThat(store.indexes().indexTree(SEC.id()).itemSize()).as("a 3-byte field part")
                .isEqualTo(io.sluice.pagestore.internal.tree.TreePageIO.ITEM);
        assertThat(keys(SEC, null, true, null, true)).containsExactly("short");
        ConsistencyCheckTest.assertConsistent(region, "narrow again");
    }

    // ---- helpers

    private byte[] order(String sec, long account, double price) {
        return binary.builder("Order").setField("sec", sec).setField("account", account).setField("price", price)
                .setField("qty", 10).build().toBytes();
    }

    private void put(String key, byte[] value) {
        byte[] k = bytes(key);
        store.put(k, 0, k.length, value, 0, value.length);
    }

    /** Overwrites a field of the stored value in place (same length) and mirrors it in {@code value}. */
    private void rewrite(String key, byte[] value, String field, byte[] encoded) {
        long range = FieldLocator.locate((BinaryObject) binary.decode(value, 0, value.length, true), field);
        assertThat(FieldLocator.end(range) - FieldLocator.start(range)).isEqualTo(encoded.length);
        byte[] k = bytes(key);
        store.update(entry -> entry.at(k, 0, k.length).overwriteValue(FieldLocator.start(range), encoded, 0,
                encoded.length));
        System.arraycopy(encoded, 0, value, FieldLocator.start(range), encoded.length);
    }

    private List<String> keys(IndexSpec index, byte[] lower, boolean lowerInclusive, byte[] upper,
                              boolean upperInclusive) {
        List<String> keys = new ArrayList<>();
        store.index().scan(index.id(), lower, lowerInclusive, upper, upperInclusive, null, (ik, key, value) -> {
            keys.add(text(key));
            return true;
        });
        return keys;
    }

    private byte[] enc(Object value) {
        GrowableBuffer out = new GrowableBuffer(16);
        binary.encode(value, out);
        return out.toByteArray();
    }

    private static int hash(String key) {
        byte[] k = bytes(key);
        return io.sluice.pagestore.internal.index.IndexKeys.keyHash(k, 0, k.length);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
