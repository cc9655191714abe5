package io.sluice.pagestore.internal.index;

import io.sluice.pagestore.internal.tree.TreePageIO;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The changes one write (an entry, or a whole batch) makes to one index tree: removals of old index keys and
 * puts of new ones, each kept as the index row it would write, back to back in one growable array, so that an
 * insert copies a row in one go and nothing is allocated per change. Reused from write to write; not
 * thread-safe (used under the written partition's write lock).
 *
 * <pre>
 * A change in {@code bytes} (an index row's stream, as {@link io.sluice.pagestore.internal.page.RowStore} stores it)
 * offset   size  meaning
 * 0        4     index key length k (big-endian)
 * 4        4     value length: 8
 * 8        k     index key ({@link IndexKeys}: the field part, the entry key's hash, the entry's key)
 * 8 + k    8     the entry's row link (big-endian): the new one for a put, the old one for a removal
 * </pre>
 */
final class IndexOps {

    /** The change removes its index key. */
    static final byte REMOVE = 0;
    /** The change puts its index key with its link (inserted, or its link rewritten if present). */
    static final byte PUT = 1;
    /** The change was cancelled (an old key that the new value keeps). */
    static final byte SKIP = 2;

    static final int HEADER = 8;
    static final int LINK = 8;

    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private byte[] bytes = new byte[256];
    private int length;
    private int[] start = new int[16];
    private byte[] kind = new byte[16];
    private int count;
    // for the sort
    private long[] high = new long[0];
    private int[] low = new int[0];
    private int[] order = new int[0];
    private int[] scratch = new int[0];
    /** Per change: 8 key bytes past the ones all keys share, the change's number in the low bits. */
    private long[] packed = new long[0];
    /** The radix sort's other buffer of packed longs, and its counts of one byte's values. */
    private long[] spare = new long[0];
    private final int[] counts = new int[256];
    /**
     * The longest leading part of the changes' keys past which their bytes likely follow the order the changes
     * were made in ({@link #commit(byte, long, int)}), or -1 if some change gave no such hint.
     */
    private int ordered;
    /** Sorts the hint alone settled (for tests: that the guess is taken where it holds). */
    private long hintsHeld;

    void clear() {
        length = 0;
        count = 0;
        ordered = 0;
    }

    int count() {
        return count;
    }

    /** Heap bytes the changes' own arrays take (not the sort's): what holding them costs ({@link HeldIndexChanges}). */
    long capacityBytes() {
        return bytes.length + 5L * start.length;
    }

    /**
     * Swaps the sort's arrays with another's: held changes ({@link HeldIndexChanges}) keep none of their own and
     * borrow the applying thread's for their pass (swap back after it).
     */
    void swapSortArrays(IndexOps other) {
        long[] h = high;
        high = other.high;
        other.high = h;
        int[] l = low;
        low = other.low;
        other.low = l;
        int[] o = order;
        order = other.order;
        other.order = o;
        int[] s = scratch;
        scratch = other.scratch;
        other.scratch = s;
        long[] p = packed;
        packed = other.packed;
        other.packed = p;
        long[] q = spare;
        spare = other.spare;
        other.spare = q;
    }

    /**
     * After {@link #sorted()}: marks every change that a later change of the same index key overrides as
     * {@link #SKIP} (changes gathered over several writes may repeat a key: an entry put, then removed or moved).
     * A removal removes its key if present and a put puts it with its link, so the last change of a key decides
     * what the tree holds; the sort is stable, so that is the last of its run.
     */
    void keepLastOfEachKey(int[] sortedOrder) {
        int later = -1; // the next change in index order that is not skipped
        for (int k = count - 1; k >= 0; k--) {
            int e = sortedOrder[k];
            if (kind[e] == SKIP) {
                continue;
            }
            if (later >= 0 && high[e] == high[later] && low[e] == low[later] && sameKey(e, later)) {
                kind[e] = SKIP;
            } else {
                later = e;
            }
        }
    }

    byte[] bytes() {
        return bytes;
    }

    /** Bytes of all rows written so far (an upper bound of what the puts will write). */
    int length() {
        return length;
    }

    /**
     * Opens a change whose index key has {@code keyLength} bytes: returns where the key's bytes go in
     * {@link #bytes()} (valid until the next call that may grow it); {@link #commit} it once they are written.
     */
    int open(int keyLength) {
        int need = length + HEADER + keyLength + LINK;
        if (need > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(need, bytes.length * 2));
        }
        putInt(bytes, length, keyLength);
        putInt(bytes, length + 4, LINK);
        return length + HEADER;
    }

    /** Commits the change opened last, with no hint for the sort. @return its number */
    int commit(byte kind, long link) {
        return commit(kind, link, -1);
    }

    /**
     * Commits the change opened last. {@code orderedPast}: a hint for the sort, or -1; a change of a batch made in
     * its entries' key order gives the length of its index key's field part when its key's hash follows its key's
     * order ({@link IndexKeys}): among keys with one field part, the order they were made in is then likely their
     * order. The sort takes it for a guess it checks, never for a fact.
     *
     * @return its number
     */
    int commit(byte kind, long link, int orderedPast) {
        if (orderedPast < 0 || ordered < 0) {
            ordered = -1;
        } else if (orderedPast > ordered) {
            ordered = orderedPast;
        }
        if (count == start.length) {
            start = Arrays.copyOf(start, count * 2);
            this.kind = Arrays.copyOf(this.kind, count * 2);
        }
        int s = length;
        int k = getInt(bytes, s);
        putLong(bytes, s + HEADER + k, link);
        start[count] = s;
        this.kind[count] = kind;
        length = s + HEADER + k + LINK;
        return count++;
    }

    /** Forgets the change committed last. */
    void dropLast() {
        count--;
        length = start[count];
    }

    int start(int op) {
        return start[op];
    }

    int keyOffset(int op) {
        return start[op] + HEADER;
    }

    int keyLength(int op) {
        return getInt(bytes, start[op]);
    }

    long link(int op) {
        return getLong(bytes, keyOffset(op) + keyLength(op));
    }

    byte kind(int op) {
        return kind[op];
    }

    void kind(int op, byte k) {
        kind[op] = k;
    }

    boolean sameKey(int a, int b) {
        int la = keyLength(a);
        return la == keyLength(b)
                && Arrays.equals(bytes, keyOffset(a), keyOffset(a) + la, bytes, keyOffset(b), keyOffset(b) + la);
    }

    /**
     * The changes in index-key order (unsigned bytes, shorter first on a common prefix), stable: keys in a batch
     * share their leading bytes (a field value, a key's tag and high bytes), so the sort skips the bytes all of
     * them share and sorts the next 8 of each, packed with the change's number into one long, with a primitive
     * sort (no comparator, no indirection: a radix sort of the bytes in which the keys differ from
     * {@value #RADIX_FROM} changes on, {@link Arrays#sort(long[], int, int)} below); only runs that tie on those
     * bits are then ordered by their whole keys (a merge sort of the run, numbers ascending, so stable). Keys
     * already in order (an ascending load) are recognised in one pass and not sorted. When every change gave a hint
     * ({@link #commit(byte, long, int)}: the changes of one field part were likely made in their keys' order), the
     * radix sort first sorts only the bytes up to the longest hinted part and checks the result ascends; only if it
     * does not are the keys sorted on all their packed bytes. Each key's first 12 bytes
     * are read once here for the walk ({@link #prefixHigh}). Valid until the next change.
     */
    int[] sorted() {
        int n = count;
        if (order.length < n) {
            int c = Math.max(n, order.length * 2);
            order = new int[c];
            scratch = new int[c];
            high = new long[c];
            low = new int[c];
            packed = new long[c];
            spare = new long[c];
        }
        boolean inOrder = true;
        long differHigh = 0; // the bits in which some key's first 12 bytes differ from the first key's
        int differLow = 0;
        int shortest = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            order[i] = i;
            int ko = keyOffset(i);
            int kl = keyLength(i);
            long h = TreePageIO.prefixHigh(bytes, ko, kl);
            int l = TreePageIO.prefixLow(bytes, ko, kl);
            high[i] = h;
            low[i] = l;
            differHigh |= h ^ high[0];
            differLow |= l ^ low[0];
            shortest = Math.min(shortest, kl);
            if (inOrder && i > 0 && compare(i - 1, i) > 0) {
                inOrder = false;
            }
        }
        if (!inOrder) {
            int shared = differHigh != 0 ? Long.numberOfLeadingZeros(differHigh) >>> 3
                    : differLow != 0 ? 8 + (Integer.numberOfLeadingZeros(differLow) >>> 3)
                    : sharedPrefix(n); // the first 12 bytes of all keys tie: the rest of them
            sortBySharedPrefix(n, Math.min(shared, shortest));
        }
        return order;
    }

    /**
     * Sorts {@link #order} (n > 1 changes, not in order, sharing their first {@code shared} bytes): see
     * {@link #sorted()}.
     */
    private void sortBySharedPrefix(int n, int shared) {
        int bits = 32 - Integer.numberOfLeadingZeros(n - 1); // the change's number
        long number = (1L << bits) - 1;
        pack(n, shared, number);
        if (n >= RADIX_FROM && ordered > shared && ordered - shared < 8
                && sortedByLeadingBytes(n, shared, ordered - shared, number)) {
            // sorted: the changes of each field part were made in order
        } else if (n < RADIX_FROM) {
            for (int i = 0; i < n; i++) { // unsigned order as signed order (sign bit flipped)
                packed[i] ^= Long.MIN_VALUE;
            }
            Arrays.sort(packed, 0, n);
        } else {
            radixSort(n, number);
        }
        orderFromPacked(n, number);
    }

    /** {@link #packed}[i]: key bytes from {@code shared} on of change i, its number in the low bits. */
    private void pack(int n, int shared, long number) {
        for (int i = 0; i < n; i++) {
            packed[i] = packedBytes(i, shared) & ~number | i;
        }
    }

    /**
     * Sorts {@link #packed} by its leading {@code bytes} (those of the field parts, per the hint), stably, and
     * checks that the whole packed keys then ascend: the hint held. If not, packs again (number order) and leaves
     * the sort to the caller.
     */
    private boolean sortedByLeadingBytes(int n, int shared, int bytes, long number) {
        radixSort(n, -1L >>> 8 * bytes | number);
        long previous = packed[0] & ~number;
        for (int k = 1; k < n; k++) {
            long v = packed[k] & ~number;
            if (Long.compareUnsigned(v, previous) < 0) {
                pack(n, shared, number);
                return false;
            }
            previous = v;
        }
        hintsHeld++;
        return true;
    }

    /** Sorts that the hint alone settled ({@link #commit(byte, long, int)}). */
    long hintsHeld() {
        return hintsHeld;
    }

    /** {@link #order} from the sorted {@link #packed}, runs that tie on the packed bits merged by their whole keys. */
    private void orderFromPacked(int n, long number) {
        for (int k = 0; k < n; k++) {
            order[k] = (int) (packed[k] & number);
        }
        for (int k = 0; k < n; ) { // runs that tie on the packed bits: by the whole key
            int end = k + 1;
            while (end < n && ((packed[end] ^ packed[k]) & ~number) == 0) {
                end++;
            }
            if (end - k > 1) {
                mergeSort(k, end);
            }
            k = end;
        }
    }

    /** From this many changes on, the packed longs are sorted by {@link #radixSort}, below by {@link Arrays#sort}. */
    static final int RADIX_FROM = 64;

    /**
     * The bytes every key of the n changes starts with (at most the shortest key's length): read from the
     * prefixes {@link #sorted()} took, so a key's bytes are compared only when the first 12 of all of them tie
     * ({@link #sorted()} finds the shared prefix of keys that differ in their first 12 bytes itself).
     */
    private int sharedPrefix(int n) {
        int shared = keyLength(0);
        long h0 = high[0];
        int l0 = low[0];
        int p = TreePageIO.PREFIX;
        for (int i = 1; i < n && shared > 0; i++) {
            int li = keyLength(i);
            if (li < shared) {
                shared = li;
            }
            long h = h0 ^ high[i];
            int l = l0 ^ low[i];
            int differ;
            if (h != 0) {
                differ = Long.numberOfLeadingZeros(h) >>> 3;
            } else if (l != 0) {
                differ = 8 + (Integer.numberOfLeadingZeros(l) >>> 3);
            } else if (shared > p) { // the first 12 bytes tie (zero-padded past a key's end): the rest of the keys
                int o0 = keyOffset(0);
                int o = keyOffset(i);
                int m = Arrays.mismatch(bytes, o0 + p, o0 + shared, bytes, o + p, o + shared);
                differ = m < 0 ? shared : p + m;
            } else {
                differ = shared;
            }
            if (differ < shared) {
                shared = differ;
            }
        }
        return shared;
    }

    /**
     * Sorts {@link #packed}[0, n) stably as unsigned longs by their bits outside {@code unsorted} (the changes'
     * numbers, and for {@link #sortedByLeadingBytes} the bits past the leading bytes) (n ≥ {@link #RADIX_FROM}): a
     * least-significant-digit-first radix sort whose 8-bit digits start at bits in which two of them differ, so it
     * skips the bits in which none do (keys of a batch share their field values' tags, lengths and often more) and
     * the unsorted bits (the input is in number order, which stability keeps).
     */
    private void radixSort(int n, long unsorted) {
        long[] from = packed;
        long[] to = spare;
        long first = from[0] & ~unsorted;
        long differ = 0;
        for (int i = 1; i < n; i++) {
            differ |= (from[i] & ~unsorted) ^ first;
        }
        int[] count = counts;
        while (differ != 0) { // a digit: the 8 bits from the lowest bit in which two of them differ still unsorted
            int shift = Long.numberOfTrailingZeros(differ);
            differ = shift >= 56 ? 0 : differ & -1L << shift + 8;
            Arrays.fill(count, 0);
            for (int i = 0; i < n; i++) {
                count[(int) (from[i] >>> shift) & 0xFF]++;
            }
            for (int d = 0, sum = 0; d < 256; d++) {
                int c = count[d];
                count[d] = sum;
                sum += c;
            }
            for (int i = 0; i < n; i++) {
                long v = from[i];
                to[count[(int) (v >>> shift) & 0xFF]++] = v;
            }
            long[] t = from;
            from = to;
            to = t;
        }
        packed = from;
        spare = to;
    }

    /** Key bytes {@code from} to {@code from + 7} of change i, as {@link #keyLong}: from its prefix if it has them. */
    private long packedBytes(int i, int from) {
        if (from == 0) {
            return high[i];
        }
        if (from <= 4) {
            return high[i] << 8 * from | (low[i] & 0xFFFF_FFFFL) >>> 32 - 8 * from;
        }
        return keyLong(bytes, keyOffset(i), keyLength(i), from);
    }

    /** Key bytes {@code from} to {@code from + 7}, zero-padded past the key's end, as a big-endian long. */
    private static long keyLong(byte[] b, int offset, int length, int from) {
        if (length >= from + 8) {
            return (long) LONG_BE.get(b, offset + from);
        }
        long v = 0;
        for (int i = from; i < from + 8; i++) {
            v = v << 8 | (i < length ? b[offset + i] & 0xFF : 0);
        }
        return v;
    }

    /** The key's first 12 bytes, after {@link #sorted()}. */
    long prefixHigh(int op) {
        return high[op];
    }

    int prefixLow(int op) {
        return low[op];
    }

    private void mergeSort(int from, int to) {
        if (to - from <= 16) { // insertion sort: stable
            for (int k = from + 1; k < to; k++) {
                int v = order[k];
                int m = k - 1;
                while (m >= from && compare(order[m], v) > 0) {
                    order[m + 1] = order[m];
                    m--;
                }
                order[m + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(from, mid);
        mergeSort(mid, to);
        if (compare(order[mid - 1], order[mid]) <= 0) {
            return;
        }
        System.arraycopy(order, from, scratch, from, mid - from);
        int i = from;
        int j = mid;
        int o = from;
        while (i < mid && j < to) {
            order[o++] = compare(scratch[i], order[j]) <= 0 ? scratch[i++] : order[j++];
        }
        while (i < mid) {
            order[o++] = scratch[i++];
        }
    }

    private int compare(int a, int b) {
        if (high[a] != high[b]) {
            return Long.compareUnsigned(high[a], high[b]);
        }
        if (low[a] != low[b]) {
            return Integer.compareUnsigned(low[a], low[b]);
        }
        int la = keyLength(a);
        int lb = keyLength(b);
        int p = TreePageIO.PREFIX;
        if (la > p && lb > p) {
            int oa = keyOffset(a);
            int ob = keyOffset(b);
            return Arrays.compareUnsigned(bytes, oa + p, oa + la, bytes, ob + p, ob + lb);
        }
        return Integer.compare(la, lb);
    }

    static void putInt(byte[] b, int at, int v) {
        INT_BE.set(b, at, v);
    }

    static int getInt(byte[] b, int at) {
        return (int) INT_BE.get(b, at);
    }

    static void putLong(byte[] b, int at, long v) {
        LONG_BE.set(b, at, v);
    }

    static long getLong(byte[] b, int at) {
        return (long) LONG_BE.get(b, at);
    }
}
