package io.sluice.samples.load;

import io.sluice.DataStreamer;
import io.sluice.binary.Binary;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.samples.StockOrder;

/** Makes the value of each key; one per producer thread (a builder source keeps its own builder). */
interface ValueSource {

    /** The key's StockOrder, as a POJO or a binary object. */
    Object value(long key);

    /** Adds the key's StockOrder to a streamer: its value made by {@link #value}, unless the source has a better way. */
    default void addTo(DataStreamer<Long, Object> streamer, long key) {
        streamer.addData(key, value(key));
    }

    /** A source of the given kind for one producer thread. */
    static ValueSource of(ValueKind kind, Binary binary, String pad) {
        return switch (kind) {
            case POJO -> pad == null ? StockOrder::forKey : key -> PaddedStockOrder.forKey(key, pad);
            case BINARY -> new BuilderValues(binary.builder(StockOrderFields.TYPE_NAME), pad);
        };
    }

    /** Values written by one reused builder. */
    final class BuilderValues implements ValueSource {
        private final BinaryObjectBuilder builder;
        private final String pad;

        BuilderValues(BinaryObjectBuilder builder, String pad) {
            this.builder = builder;
            this.pad = pad;
        }

        @Override
        public Object value(long key) {
            return StockOrderFields.build(builder, key, pad);
        }

        /** The builder writes the order straight into the streamer's buffer: no object, no array, one copy. */
        @Override
        public void addTo(DataStreamer<Long, Object> streamer, long key) {
            streamer.addFromBuilder(key, StockOrderFields.fill(builder, key, pad));
        }
    }
}
