package io.sluice.pagestore.internal.tree;

/**
 * One descent of a {@link BPlusTree} from the root to a leaf, as a value: per level the page and the
 * child taken (inner) or the key's position (leaf), the leaf search's result, and the separator on the
 * way that equals the key (whose row a removal or a replacement must leave to the separator). A write
 * descends once into a path and then changes the tree along it.
 *
 * <p>Paths are working state of the thread that writes, not of a tree: single-key writes use one per
 * thread ({@link #acquire}), a {@link SortedWalk} owns one, so an idle partition keeps none.
 */
final class TreePath {

    /** Far deeper than a tree gets: 2^32 keys in 1 KiB pages (15 or more children per page) take about 8 levels. */
    static final int MAX_HEIGHT = 48;

    private static final ThreadLocal<TreePath> PER_THREAD = ThreadLocal.withInitial(TreePath::new);

    /** Per level: the page. */
    final long[] page = new long[MAX_HEIGHT];
    /** Per level: the child taken (inner), the key's position (leaf). */
    final int[] index = new int[MAX_HEIGHT];
    /** Per inner level: the page's separators at the descent. */
    final int[] count = new int[MAX_HEIGHT];
    /** The leaf search's result: the key's index, or -(insertion point) - 1. */
    int found;
    /** Level and index of the separator equal to the key, or -1. */
    int equalSeparatorDepth;
    int equalSeparatorIndex;
    /** The key's first 12 bytes (see {@link TreePageIO#prefixHigh(byte[], int, int)}). */
    long keyHigh;
    int keyLow;
    private boolean inUse;

    /** This thread's path for one single-key write; {@link #release} it when the write ends. */
    static TreePath acquire() {
        TreePath path = PER_THREAD.get();
        if (path.inUse) { // a write inside a write (none today): a path of its own
            path = new TreePath();
        }
        path.inUse = true;
        return path;
    }

    void release() {
        inUse = false;
    }

    /** Starts a descent for the key. */
    void reset(long keyHigh, int keyLow) {
        this.keyHigh = keyHigh;
        this.keyLow = keyLow;
        equalSeparatorDepth = -1;
    }

    /** Records the leaf search's result {@code r} at the leaf level. @return whether the key is present */
    boolean atLeaf(int level, long leaf, int r) {
        page[level] = leaf;
        index[level] = r >= 0 ? r : -r - 1;
        found = r;
        return r >= 0;
    }

    /** Records a separator equal to the key ({@code depth} -1: none). */
    void equalSeparator(int depth, int separator) {
        equalSeparatorDepth = depth;
        equalSeparatorIndex = separator;
    }

    /** The deepest level above {@code level} whose separator on the path bounds it from the right, or -1. */
    int boundAbove(int level) {
        for (int d = level - 1; d >= 0; d--) {
            if (index[d] < count[d]) {
                return d;
            }
        }
        return -1;
    }
}
