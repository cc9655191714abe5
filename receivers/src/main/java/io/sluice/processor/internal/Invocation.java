package io.sluice.processor.internal;

import io.sluice.cachestore.internal.InPlaceChanges;
import io.sluice.pagestore.internal.PartitionStore;

import java.util.Arrays;

/**
 * Runs one processor over some keys of one partition: in key order (unsigned bytes; equal keys in the
 * order given), under one hold of the partition's write lock, each key on its own — a key whose
 * processor throws keeps its value and the others go on. Runs on the partition's apply thread.
 */
public final class Invocation {

    private Invocation() {
    }

    /** The keys to process and each one's argument. */
    public interface Keys {
        int size();

        byte[] array(int i);

        int offset(int i);

        int length(int i);

        /** The processor's argument for key i. @throws Exception if it cannot be decoded */
        Object argument(int i) throws Exception;
    }

    /** What became of each key. */
    public interface Outcomes {
        void succeeded(int i, Object result);

        void failed(int i, Throwable cause);
    }

    /** Processes every key; reports each through outcomes (exactly once per key). */
    public static void run(PartitionStore store, StoredEntryProcessor processor, Keys keys, Outcomes outcomes) {
        run(store, processor, keys, outcomes, null);
    }

    /**
     * Processes every key as {@link #run(PartitionStore, StoredEntryProcessor, Keys, Outcomes)} does, and
     * records in {@code changes} (when not null) each key whose value the processor changed, before and after.
     */
    public static void run(PartitionStore store, StoredEntryProcessor processor, Keys keys, Outcomes outcomes,
                           InPlaceChanges changes) {
        int[] order = sortedOrder(keys);
        int[] done = {0};
        try {
            store.update(entry -> {
                for (; done[0] < order.length; done[0]++) {
                    int i = order[done[0]];
                    Object result;
                    try {
                        entry.at(keys.array(i), keys.offset(i), keys.length(i));
                        if (changes != null) {
                            changes.before(entry);
                        }
                        result = processor.process(entry, keys.array(i), keys.offset(i), keys.length(i),
                                keys.argument(i));
                        if (changes != null) {
                            changes.after(entry, keys.array(i), keys.offset(i), keys.length(i), i);
                        }
                    } catch (Exception e) {
                        outcomes.failed(i, e);
                        continue;
                    }
                    outcomes.succeeded(i, result);
                }
            });
        } catch (RuntimeException | Error e) {
            // The partition is gone (its cache destroyed) or an Error escaped: the rest fail with it.
            for (; done[0] < order.length; done[0]++) {
                outcomes.failed(order[done[0]], e);
            }
            if (e instanceof Error error) {
                throw error;
            }
        }
    }

    /** Key indexes in key order, stable (a merge sort of ints: nothing allocated per key). */
    static int[] sortedOrder(Keys keys) {
        int n = keys.size();
        int[] order = new int[n];
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            order[i] = i;
            if (sorted && i > 0 && compare(keys, i - 1, i) > 0) {
                sorted = false;
            }
        }
        if (!sorted) {
            mergeSort(keys, order, new int[n], 0, n);
        }
        return order;
    }

    private static void mergeSort(Keys keys, int[] a, int[] tmp, int from, int to) {
        if (to - from <= 16) {
            for (int i = from + 1; i < to; i++) {
                int x = a[i];
                int j = i - 1;
                while (j >= from && compare(keys, a[j], x) > 0) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = x;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(keys, a, tmp, from, mid);
        mergeSort(keys, a, tmp, mid, to);
        if (compare(keys, a[mid - 1], a[mid]) <= 0) {
            return;
        }
        System.arraycopy(a, from, tmp, from, to - from);
        int i = from;
        int j = mid;
        for (int k = from; k < to; k++) {
            if (j >= to || (i < mid && compare(keys, tmp[i], tmp[j]) <= 0)) {
                a[k] = tmp[i++];
            } else {
                a[k] = tmp[j++];
            }
        }
    }

    private static int compare(Keys keys, int a, int b) {
        return Arrays.compareUnsigned(keys.array(a), keys.offset(a), keys.offset(a) + keys.length(a),
                keys.array(b), keys.offset(b), keys.offset(b) + keys.length(b));
    }
}
