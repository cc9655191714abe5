package io.sluice.samples.load;

import io.sluice.binary.Binary;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.samples.StockOrder;

/** Makes the value of each key; one per producer thread (a builder source keeps its own builder). */
interface ValueSource {

    /** The key's StockOrder, as a POJO or a binary object. */
    Object value(long key);

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
    }
}
