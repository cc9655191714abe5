package io.sluice.samples.bench;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.samples.StockOrder;

import java.util.SplittableRandom;

/**
 * The store benchmarks' input: StockOrder values (binary objects registered in a {@link BinaryContext}) under
 * {@link StoreKeys} keys, encoded as the node receives them ({@link EntryBatch}es), made once before measuring. Same
 * seeds every time, so runs of one benchmark and of different benchmarks see the same entries.
 */
final class StockOrderBatches {

    private StockOrderBatches() {
    }

    /**
     * @param varied    the indexed fields vary: one of 40 security codes and 5,000 accounts (else every order has
     *                  {@link StockOrder#forKey}'s)
     * @param ascending keys in ascending order, else random
     */
    static EntryBatch[] make(BinaryContext binary, int entries, int batch, boolean varied, boolean ascending) {
        long[] keys = StoreKeys.keys(entries, ascending, 42);
        SplittableRandom random = new SplittableRandom(7);
        EntryBatch[] result = new EntryBatch[(entries + batch - 1) / batch];
        byte[] key = new byte[StoreKeys.KEY_LENGTH];
        GrowableBuffer out = new GrowableBuffer(batch * 256);
        for (int b = 0; b < result.length; b++) {
            out.reset();
            int from = b * batch;
            int to = Math.min(entries, from + batch);
            for (int i = from; i < to; i++) {
                StockOrder o = StockOrder.forKey(keys[i]);
                if (varied) {
                    o = new StockOrder("SEC" + random.nextInt(40), o.price(), o.quantity(), o.buySell(), o.secBoard(),
                            String.format("L01-%08d", random.nextInt(5_000)), o.user(), o.currency(), o.commission(),
                            o.status(), o.marketMaker());
                }
                byte[] value = binary.toBinary(o).toBytes();
                StoreKeys.key(key, keys[i]);
                EntryBatch.appendHeader(out, key.length, value.length);
                out.putBytes(key);
                out.putBytes(value);
            }
            result[b] = new EntryBatch(out.toByteArray(), out.position(), to - from);
        }
        return result;
    }
}
