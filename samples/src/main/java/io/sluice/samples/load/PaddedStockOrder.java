package io.sluice.samples.load;

import io.sluice.samples.StockOrder;

/**
 * A {@link StockOrder} with a padding field, the POJO value of a load run with {@code --value-size}.
 * Its components are StockOrder's, plus {@code pad}.
 */
public record PaddedStockOrder(String secCode, double price, long quantity, String buySell, String secBoard,
                               String account, String user, String currency, double commission, String status,
                               boolean marketMaker, String pad) {

    /** The key's order ({@link StockOrder#forKey}) carrying the padding. */
    public static PaddedStockOrder forKey(long key, String pad) {
        StockOrder o = StockOrder.forKey(key);
        return new PaddedStockOrder(o.secCode(), o.price(), o.quantity(), o.buySell(), o.secBoard(), o.account(),
                o.user(), o.currency(), o.commission(), o.status(), o.marketMaker(), pad);
    }
}
