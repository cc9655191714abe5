package io.sluice.samples.kafka;

import io.sluice.samples.StockOrder;

/**
 * {@link StockOrder#forKey(long)} as the JSON a Kafka topic carries: schemaless (for
 * {@code JsonConverter} with {@code schemas.enable=false} or {@code StringConverter}), or in the
 * {@code {"schema": ..., "payload": ...}} envelope of {@code JsonConverter} with schemas.
 */
public final class StockOrderJson {

    /** The Connect schema of a StockOrder, as JsonConverter's envelope writes it. */
    static final String SCHEMA = "{\"type\":\"struct\",\"name\":\"StockOrder\",\"optional\":false,\"fields\":["
            + "{\"field\":\"secCode\",\"type\":\"string\"},{\"field\":\"price\",\"type\":\"double\"},"
            + "{\"field\":\"quantity\",\"type\":\"int64\"},{\"field\":\"buySell\",\"type\":\"string\"},"
            + "{\"field\":\"secBoard\",\"type\":\"string\"},{\"field\":\"account\",\"type\":\"string\"},"
            + "{\"field\":\"user\",\"type\":\"string\"},{\"field\":\"currency\",\"type\":\"string\"},"
            + "{\"field\":\"commission\",\"type\":\"double\"},{\"field\":\"status\",\"type\":\"string\"},"
            + "{\"field\":\"marketMaker\",\"type\":\"boolean\"}]}";

    private StockOrderJson() {
    }

    /** The order of this key as a JSON object. */
    public static String schemaless(long key) {
        StockOrder o = StockOrder.forKey(key);
        return "{\"secCode\":\"" + o.secCode() + "\",\"price\":" + o.price() + ",\"quantity\":" + o.quantity()
                + ",\"buySell\":\"" + o.buySell() + "\",\"secBoard\":\"" + o.secBoard() + "\",\"account\":\""
                + o.account() + "\",\"user\":\"" + o.user() + "\",\"currency\":\"" + o.currency()
                + "\",\"commission\":" + o.commission() + ",\"status\":\"" + o.status() + "\",\"marketMaker\":"
                + o.marketMaker() + "}";
    }

    /** The order of this key in JsonConverter's schema envelope. */
    public static String withSchema(long key) {
        return "{\"schema\":" + SCHEMA + ",\"payload\":" + schemaless(key) + "}";
    }
}
