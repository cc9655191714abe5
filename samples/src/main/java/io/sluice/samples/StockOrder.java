package io.sluice.samples;

/**
 * The StockOrder workload's value: an 11-field exchange order. The load generator makes one per
 * key (price and quantity vary with the key); the binary benchmarks build the same fields.
 *
 * @param secCode     security code, "SBER"
 * @param price       limit price
 * @param quantity    lots
 * @param buySell     "B" or "S"
 * @param secBoard    trading board, "TQBR"
 * @param account     trading account
 * @param user        the user who placed it
 * @param currency    "RUB"
 * @param commission  commission charged
 * @param status      order status
 * @param marketMaker whether a market maker placed it
 */
public record StockOrder(String secCode, double price, long quantity, String buySell, String secBoard,
                         String account, String user, String currency, double commission, String status,
                         boolean marketMaker) {

    /** The order the load generator makes for a key: deterministic, so a reader can check it. */
    public static StockOrder forKey(long key) {
        return new StockOrder("SBER", 100.0 + (key % 10_000) / 100.0, 1 + key % 1000, (key & 1) == 0 ? "B" : "S",
                "TQBR", "L01-00000F00", "user" + (key % 100), "RUB", 0.01 * (1 + key % 7), "NEW", key % 10 == 0);
    }
}
