package io.sluice.receiver.internal;

import io.sluice.Cache;
import io.sluice.StreamReceiver;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.PartitionStore;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a user's {@link StreamReceiver} registered on the node by name: decodes each entry of the
 * batch (a removal becomes a {@code null} value) and hands the list to
 * {@link StreamReceiver#receive}. Whatever the receiver throws fails the whole batch with that
 * exception as the cause.
 */
public final class CustomReceiverAdapter implements BatchReceiver {

    private final String name;
    private final StreamReceiver<Object, Object> receiver;

    /**
     * @param name     the name the receiver is registered under
     * @param receiver the instance this adapter calls (one per stripe thread)
     */
    @SuppressWarnings("unchecked")
    public CustomReceiverAdapter(String name, StreamReceiver<?, ?> receiver) {
        this.name = name;
        this.receiver = (StreamReceiver<Object, Object>) receiver;
    }

    /** The name the receiver is registered under. */
    public String name() {
        return name;
    }

    @Override
    public int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch)
            throws Exception {
        byte[] data = batch.data();
        int n = batch.size();
        // Objects per entry are what a custom receiver asks for: it takes decoded keys and values.
        List<Map.Entry<Object, Object>> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Object key = codec.decode(data, batch.keyOffset(i), batch.keyLength(i), false);
            Object value = batch.isRemoval(i) ? null
                    : codec.decode(data, batch.valueOffset(i), batch.valueLength(i), false);
            entries.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
        }
        receiver.receive(cache, entries);
        return n;
    }

    @Override
    public String toString() {
        return "custom receiver '" + name + "' (" + receiver.getClass().getName() + ")";
    }
}
