package io.sluice.samples.load;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.samples.StockOrder;

import java.util.function.Function;

/**
 * The StockOrder workload field by field: the same values as {@link StockOrder#forKey(long)}, made
 * without allocating (the strings come from constants and a table), so that the builder and raw
 * modes measure writing the fields, not making them. A test holds these equal to {@code forKey}.
 */
public final class StockOrderFields {

    /** The type name of binary objects made by a builder. */
    public static final String TYPE_NAME = "StockOrder";
    /** The padding field added for {@code --value-size}. */
    public static final String PAD = "pad";
    /** The record's fields, in declaration order. */
    static final String[] NAMES = {"secCode", "price", "quantity", "buySell", "secBoard", "account", "user",
            "currency", "commission", "status", "marketMaker"};

    static final String SEC_CODE = "SBER";
    static final String SEC_BOARD = "TQBR";
    static final String ACCOUNT = "L01-00000F00";
    static final String CURRENCY = "RUB";
    static final String STATUS = "NEW";
    private static final String[] USERS = new String[100];

    static {
        for (int i = 0; i < USERS.length; i++) {
            USERS[i] = "user" + i;
        }
    }

    private StockOrderFields() {
    }

    static double price(long key) {
        return 100.0 + (key % 10_000) / 100.0;
    }

    static long quantity(long key) {
        return 1 + key % 1000;
    }

    static String buySell(long key) {
        return (key & 1) == 0 ? "B" : "S";
    }

    /** Keys of the workload are never negative. */
    static String user(long key) {
        return USERS[(int) (key % 100)];
    }

    static double commission(long key) {
        return 0.01 * (1 + key % 7);
    }

    static boolean marketMaker(long key) {
        return key % 10 == 0;
    }

    /**
     * Writes the key's order into a (reused) builder and builds it.
     *
     * @param pad the padding field's value, or {@code null} for none
     */
    public static BinaryObject build(BinaryObjectBuilder builder, long key, String pad) {
        return fill(builder, key, pad).build();
    }

    /**
     * Writes the key's order into a (reused) builder, for {@code build()} or a streamer's
     * {@code addFromBuilder}.
     *
     * @param pad the padding field's value, or {@code null} for none
     * @return the builder
     */
    public static BinaryObjectBuilder fill(BinaryObjectBuilder builder, long key, String pad) {
        // The primitive setters box nothing: the builder allocates nothing per object on its fast path.
        builder.setField("secCode", SEC_CODE)
                .setDouble("price", price(key))
                .setLong("quantity", quantity(key))
                .setField("buySell", buySell(key))
                .setField("secBoard", SEC_BOARD)
                .setField("account", ACCOUNT)
                .setField("user", user(key))
                .setField("currency", CURRENCY)
                .setDouble("commission", commission(key))
                .setField("status", STATUS)
                .setBoolean("marketMaker", marketMaker(key));
        if (pad != null) {
            builder.setField(PAD, pad);
        }
        return builder;
    }

    /**
     * Hands each field of the key's order to {@code field}, in {@link #build}'s order, its value boxed: for another
     * system's builder (the Ignite side-by-side benchmark), not for Sluice's, which {@link #build} fills unboxed.
     */
    public static void forEachField(long key, java.util.function.BiConsumer<String, Object> field) {
        field.accept("secCode", SEC_CODE);
        field.accept("price", price(key));
        field.accept("quantity", quantity(key));
        field.accept("buySell", buySell(key));
        field.accept("secBoard", SEC_BOARD);
        field.accept("account", ACCOUNT);
        field.accept("user", user(key));
        field.accept("currency", CURRENCY);
        field.accept("commission", commission(key));
        field.accept("status", STATUS);
        field.accept("marketMaker", marketMaker(key));
    }

    /** The value a field of the key's order must have. */
    static Object expected(long key, String field) {
        return switch (field) {
            case "secCode" -> SEC_CODE;
            case "price" -> price(key);
            case "quantity" -> quantity(key);
            case "buySell" -> buySell(key);
            case "secBoard" -> SEC_BOARD;
            case "account" -> ACCOUNT;
            case "user" -> user(key);
            case "currency" -> CURRENCY;
            case "commission" -> commission(key);
            case "status" -> STATUS;
            case "marketMaker" -> marketMaker(key);
            default -> throw new IllegalArgumentException("StockOrder has no field " + field);
        };
    }

    /**
     * Compares a stored order with the key's expected one, field by field.
     *
     * @param stored reads a field of the stored order by name
     * @param pad    the padding the order must carry, or {@code null} for none
     * @return {@code null} if they match, else what differs
     */
    static String difference(long key, Function<String, Object> stored, String pad) {
        for (String field : NAMES) {
            Object expected = expected(key, field);
            Object actual = stored.apply(field);
            if (!expected.equals(actual)) {
                return "key " + key + ": field " + field + " is " + actual + ", expected " + expected;
            }
        }
        if (pad != null) {
            Object actual = stored.apply(PAD);
            if (!pad.equals(actual)) {
                return "key " + key + ": field " + PAD + " is " + describe(actual) + ", expected "
                        + pad.length() + " characters";
            }
        }
        return null;
    }

    private static String describe(Object value) {
        return value instanceof String s ? s.length() + " characters" : String.valueOf(value);
    }
}
