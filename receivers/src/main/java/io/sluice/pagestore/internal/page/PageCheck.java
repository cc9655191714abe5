package io.sluice.pagestore.internal.page;

import io.sluice.protocol.internal.EntryBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The page-level half of a store consistency check: what every page was found to be used as, each
 * row read defensively (a damaged page gives a problem, never an exception or an endless chain), and
 * the data pages' own bookkeeping. Tree pages are checked by {@code TreeCheck}, free-list pages by
 * {@code FreeList.check}; {@code DataRegion.checkConsistency} runs them all and reads {@link #problems()}.
 *
 * <p>Not thread-safe: one checking thread, while no writer runs (the caller holds every partition's lock).
 */
public final class PageCheck {

    /** What a page is used as. A data page holds row heads of any partition; every other use is exclusive. */
    public static final byte UNSEEN = 0;
    public static final byte TREE = 1;
    public static final byte FRAGMENT = 2;
    public static final byte DATA = 3;
    public static final byte FREE = 4;
    private static final String[] USES = {"unseen", "a tree page", "a fragment page", "a data page", "a free page"};
    /** Problems beyond this many are counted, not listed (a wrecked store should not fill the heap). */
    private static final int MAX_LISTED = 100;

    private final PageMemory memory;
    private final int pageSize;
    private final long pages;
    private final byte[] use;
    /** Rows the trees refer to, per data page (compared with the page's live rows at the end). */
    private final int[] rowsReferenced;
    private final List<String> problems = new ArrayList<>();
    private long problemCount;
    private final int fragmentCapacity;
    private final int maxUnlinked;
    private final int maxLinked;

    public PageCheck(PageMemory memory) {
        this.memory = memory;
        this.pageSize = memory.pageSize();
        this.pages = memory.allocatedPages();
        if (pages >= Integer.MAX_VALUE) {
            throw new IllegalStateException("a region of " + pages + " pages is too large to check");
        }
        this.use = new byte[(int) pages + 1];
        this.rowsReferenced = new int[(int) pages + 1];
        this.fragmentCapacity = FragmentPageIO.capacity(pageSize);
        this.maxUnlinked = DataPageIO.maxPayload(pageSize, false);
        this.maxLinked = DataPageIO.maxPayload(pageSize, true);
    }

    public PageMemory memory() {
        return memory;
    }

    /** Records a problem (the message names the cache, partition and page). */
    public void problem(String message) {
        problemCount++;
        if (problems.size() < MAX_LISTED) {
            problems.add(message);
        }
    }

    /** Problems listed (at most 100). */
    public List<String> problems() {
        return problems;
    }

    /** Every problem found, listed or not. */
    public long problemCount() {
        return problemCount;
    }

    /** Whether the id names an allocated page. */
    public boolean valid(long page) {
        return page >= 1 && page <= pages;
    }

    /** The page's type byte as stored. */
    public byte type(long page) {
        return PageHeader.type(memory.buffer(page), memory.offset(page));
    }

    /**
     * Records that {@code where} uses the page as {@code as}.
     *
     * @return false (and a problem recorded) if the id is not a page or the page already has another use
     */
    public boolean claim(long page, byte as, String where) {
        if (!valid(page)) {
            problem(where + ": page " + page + " is not an allocated page (1.." + pages + ")");
            return false;
        }
        byte was = use[(int) page];
        if (was == UNSEEN || was == DATA && as == DATA) {
            use[(int) page] = as;
            return true;
        }
        problem(where + ": page " + page + " is used as " + USES[as] + " but was already found as " + USES[was]);
        return false;
    }

    /**
     * Reads the row at the link defensively: its head in a data page (type, item slot, bounds), its
     * fragment chain (each a fragment page used once, as many as its length needs, the last one ending
     * the chain). The row's fragment pages are claimed.
     *
     * @param owner whether the caller owns the row (a leaf item, a ghost separator): the row is counted against
     *              its data page's live rows, and its fragment pages claimed (a live separator's row is a leaf's)
     * @return the row's key, or null if the row is damaged (a problem recorded)
     */
    public byte[] rowKey(long link, boolean owner, String where) {
        long page = RowStore.pageOf(link);
        int item = RowStore.itemOf(link);
        String at = where + ": row " + page + "/" + item;
        if (!valid(page)) {
            problem(at + " is on page " + page + ", not an allocated page (1.." + pages + ")");
            return null;
        }
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        if (PageHeader.type(b, p) != PageHeader.TYPE_DATA) {
            problem(at + ": page " + page + " has type " + PageHeader.type(b, p) + ", not a data page");
            return null;
        }
        if (!claim(page, DATA, at)) {
            return null;
        }
        // (a cycle in a fragment chain shows as a page claimed twice; a live separator's reads are bounded below)
        int count = DataPageIO.itemCount(b, p);
        if (item >= count) {
            problem(at + ": the data page has " + count + " item slots");
            return null;
        }
        int slot = b.getShort(p + DataPageIO.ITEMS + 2 * item) & 0xFFFF;
        if (slot == 0) {
            problem(at + ": the item slot is free (the row was removed)");
            return null;
        }
        if (slot < DataPageIO.ITEMS + 2 * count || slot + DataPageIO.ROW_HEADER > pageSize) {
            problem(at + ": the item slot points at offset " + slot + ", outside the page's rows");
            return null;
        }
        int row = p + slot;
        int head = DataPageIO.payloadLength(b, row);
        boolean continued = DataPageIO.continued(b, row);
        if (slot + DataPageIO.rowSize(head, continued) > pageSize) {
            problem(at + ": a row head of " + head + " bytes at offset " + slot + " runs past the page's end");
            return null;
        }
        if (owner) {
            rowsReferenced[(int) page]++;
        }
        byte[] stream;
        int payload = DataPageIO.payloadOffset(b, row);
        if (!continued) {
            if (head < EntryBatch.ENTRY_HEADER) {
                problem(at + ": a row of " + head + " bytes is shorter than an entry's header");
                return null;
            }
            int keyLength = b.getInt(payload);
            int valueLength = b.getInt(payload + 4);
            if (keyLength < 0 || valueLength < 0 || (long) EntryBatch.ENTRY_HEADER + keyLength
                    + Math.max(0, valueLength) != head) {
                problem(at + ": key length " + keyLength + " and value length " + valueLength
                        + " do not add up to the row's " + head + " bytes");
                return null;
            }
            byte[] key = new byte[keyLength];
            b.get(payload + EntryBatch.ENTRY_HEADER, key, 0, keyLength);
            return key;
        }
        // A continued row: header (maybe split), then whole fragments.
        long next = DataPageIO.nextFragment(b, row);
        byte[] headBytes = new byte[head];
        b.get(payload, headBytes, 0, head);
        List<Long> chain = new ArrayList<>();
        long maxFragments = Integer.MAX_VALUE / fragmentCapacity + 1L;
        while (next != PageMemory.NULL_PAGE) {
            if (chain.size() >= maxFragments) {
                problem(at + ": its fragment chain does not end (more than " + maxFragments + " pages)");
                return null;
            }
            if (!valid(next) || owner && !claim(next, FRAGMENT, at + " fragment " + chain.size())) {
                if (!valid(next)) {
                    problem(at + ": fragment " + chain.size() + " is page " + next + ", not an allocated page");
                }
                return null; // a cycle shows as a page claimed twice
            }
            if (type(next) != PageHeader.TYPE_FRAGMENT) {
                problem(at + ": fragment " + chain.size() + " is page " + next + " of type " + type(next)
                        + ", not a fragment page");
                return null;
            }
            chain.add(next);
            next = FragmentPageIO.next(memory.buffer(next), memory.offset(next));
        }
        long total = head + (long) chain.size() * fragmentCapacity;
        byte[] lengths = Arrays.copyOf(headBytes, EntryBatch.ENTRY_HEADER);
        if (head < EntryBatch.ENTRY_HEADER && !chain.isEmpty()) {
            long first = chain.get(0);
            memory.buffer(first).get(FragmentPageIO.payloadOffset(memory.offset(first)), lengths, head,
                    EntryBatch.ENTRY_HEADER - head);
        }
        int keyLength = intAt(lengths, 0);
        int valueLength = intAt(lengths, 4);
        long expected = EntryBatch.ENTRY_HEADER + (long) keyLength + Math.max(0, valueLength);
        if (keyLength < 0 || valueLength < 0 || expected != total || chain.isEmpty()
                || head > maxLinked || total <= maxUnlinked) {
            problem(at + ": key length " + keyLength + " and value length " + valueLength + " (" + expected
                    + " bytes) do not match its head of " + head + " bytes and " + chain.size() + " fragment pages ("
                    + total + " bytes)");
            return null;
        }
        byte[] key = new byte[keyLength];
        int copied = 0;
        int from = EntryBatch.ENTRY_HEADER;
        if (from < head) {
            copied = Math.min(keyLength, head - from);
            System.arraycopy(headBytes, from, key, 0, copied);
        }
        long pos = head; // stream position of the current fragment's first byte
        for (int f = 0; f < chain.size() && copied < keyLength; f++) {
            long page0 = chain.get(f);
            int fp = FragmentPageIO.payloadOffset(memory.offset(page0));
            long start = Math.max(pos, EntryBatch.ENTRY_HEADER + (long) copied);
            long end = Math.min(pos + fragmentCapacity, EntryBatch.ENTRY_HEADER + (long) keyLength);
            if (start < end) {
                memory.buffer(page0).get(fp + (int) (start - pos), key, copied, (int) (end - start));
                copied += (int) (end - start);
            }
            pos += fragmentCapacity;
        }
        return key;
    }

    private static int intAt(byte[] a, int at) {
        return (a[at] & 0xFF) << 24 | (a[at + 1] & 0xFF) << 16 | (a[at + 2] & 0xFF) << 8 | (a[at + 3] & 0xFF);
    }

    /**
     * The data page's own bookkeeping: its free bytes equal the page size less the slot table and the
     * live rows, the live count equals the used slots, and rows lie between the slot table and the end.
     *
     * @return null if consistent, else what is wrong
     */
    public String dataPageProblem(long page) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int count = DataPageIO.itemCount(b, p);
        int free = DataPageIO.freeBytes(b, p);
        int live = DataPageIO.liveRows(b, p);
        if (DataPageIO.ITEMS + 2L * count > pageSize) {
            return "page " + page + ": " + count + " item slots do not fit in the page";
        }
        int used = 0;
        int rows = 0;
        for (int i = 0; i < count; i++) {
            int slot = b.getShort(p + DataPageIO.ITEMS + 2 * i) & 0xFFFF;
            if (slot == 0) {
                continue;
            }
            if (slot < DataPageIO.ITEMS + 2 * count || slot + DataPageIO.ROW_HEADER > pageSize) {
                return "page " + page + ": item " + i + " points at offset " + slot + ", outside the page's rows";
            }
            int size = DataPageIO.rowBytes(b, p + slot);
            if (slot + size > pageSize) {
                return "page " + page + ": item " + i + " (" + size + " bytes at " + slot + ") runs past the page's end";
            }
            used += size;
            rows++;
        }
        if (rows != live) {
            return "page " + page + ": it counts " + live + " live rows but " + rows + " item slots are used";
        }
        int expected = pageSize - DataPageIO.ITEMS - 2 * count - used;
        if (free != expected) {
            return "page " + page + ": it claims " + free + " free bytes but has " + expected
                    + " (page size less slot table less rows)";
        }
        return null;
    }

    /**
     * After every tree was walked: each data page a tree reached is consistent and has exactly as many
     * live rows as the trees refer to (more would be rows nobody owns, fewer a row referred to twice).
     */
    public void checkDataPages() {
        for (int page = 1; page <= pages; page++) {
            if (use[page] != DATA) {
                continue;
            }
            String wrong = dataPageProblem(page);
            if (wrong != null) {
                problem(wrong);
                continue;
            }
            int live = DataPageIO.liveRows(memory.buffer(page), memory.offset(page));
            if (live != rowsReferenced[page]) {
                problem("page " + page + ": it holds " + live + " live rows but the trees refer to "
                        + rowsReferenced[page]);
            }
        }
    }

    /** Pages found in use (tree, fragment, data) or free. */
    public long[] pagesByUse() {
        long[] n = new long[USES.length];
        for (int page = 1; page <= pages; page++) {
            n[use[page]]++;
        }
        return n;
    }

    /** Pages allocated in the region. */
    public long pages() {
        return pages;
    }

    public int pageSize() {
        return pageSize;
    }
}
