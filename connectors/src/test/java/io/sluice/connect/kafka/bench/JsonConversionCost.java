package io.sluice.connect.kafka.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.connect.kafka.internal.BinaryValues;
import io.sluice.connect.kafka.internal.JsonValues;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.StringConverter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * Thread CPU nanoseconds per record of the Kafka sink's JSON → binary object conversion and its parts (issue 29),
 * over a ring of 65,536 distinct schemaless StockOrder records as UTF-8 bytes (what a {@code ByteArrayConverter}
 * hands the sink with {@code sluice.value.bytes.format=JSON}), one stage per JVM.
 *
 * <table>
 *   <caption>Stages</caption>
 *   <tr><th>stage</th><th>what one record costs</th></tr>
 *   <tr><td>{@code convert}</td><td>the connector's {@code JsonValues.fromJson(byte[], type)}: the whole conversion</td></tr>
 *   <tr><td>{@code string}</td><td>what {@code StringConverter} + {@code sluice.value.string.format=JSON} cost: the
 *       converter's {@code toConnectData} (the bytes decoded into a String), then {@code JsonValues.fromJson(String, type)}</td></tr>
 *   <tr><td>{@code jsonconverter}</td><td>what {@code JsonConverter} ({@code schemas.enable=false}) costs: its
 *       {@code toConnectData} (a tree, then a Map), then {@code BinaryValues.fromMap}</td></tr>
 *   <tr><td>{@code tokens}</td><td>the same parser over the same bytes reading every name and value as the
 *       conversion does (text as the parser's chars, numbers parsed), no builder</td></tr>
 *   <tr><td>{@code open}</td><td>creating the parser over the bytes, reading the first token, closing it</td></tr>
 *   <tr><td>{@code build}</td><td>the same fields written into a reused builder from constants and built,
 *       no parsing</td></tr>
 * </table>
 *
 * <pre>./mvnw -B -o -q -pl connectors -am test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp \
 *     -Dmdep.includeScope=test
 * java -Xms1g -Xmx1g -cp connectors/target/test-classes:connectors/target/classes:$(cat /tmp/cp) \
 *     io.sluice.connect.kafka.bench.JsonConversionCost STAGE [records=2000000 [rounds=5 [warm-up rounds=3]]]</pre>
 * The records are {@code sluice-samples}' {@code StockOrderJson.schemaless(key)} (186-192 bytes, as the sink's
 * throughput test writes them).
 */
public final class JsonConversionCost {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int RING = 1 << 16;
    private static final Object[] SINK = new Object[1024];
    private static final String TYPE = "StockOrder";
    private static long sum;

    private JsonConversionCost() {
    }

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: JsonConversionCost convert|string|jsonconverter|tokens|open|build [records [rounds [warmup]]]");
            System.exit(2);
        }
        String stage = args[0];
        int records = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        byte[][] ring = new byte[RING][];
        for (int i = 0; i < RING; i++) {
            ring[i] = schemaless(i).getBytes(StandardCharsets.UTF_8);
        }
        Runnable pass = pass(stage, records, ring);
        double[] perRecord = new double[rounds];
        for (int r = -warmup; r < rounds; r++) {
            long start = THREADS.getCurrentThreadCpuTime();
            pass.run();
            double ns = (double) (THREADS.getCurrentThreadCpuTime() - start) / records;
            System.out.printf(Locale.ROOT, "%s round %d%s: %.1f ns/record%n", stage, r + warmup + 1,
                    r < 0 ? " (warm-up)" : "", ns);
            if (r >= 0) {
                perRecord[r] = ns;
            }
        }
        Arrays.sort(perRecord);
        System.out.printf(Locale.ROOT, "%s: median %.1f ns/record (%.1f-%.1f) over %d rounds of %d records (%d)%n",
                stage, perRecord[rounds / 2], perRecord[0], perRecord[rounds - 1], rounds, records, sum & 1);
    }

    private static Runnable pass(String stage, int records, byte[][] ring) {
        JsonFactory factory = JsonFactory.builder()
                .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
                .enable(StreamReadFeature.USE_FAST_BIG_NUMBER_PARSER)
                .build();
        BinaryContext context = new BinaryContext();
        return switch (stage) {
            case "convert" -> {
                JsonValues json = new JsonValues(new BinaryValues(context));
                yield () -> {
                    for (int k = 0; k < records; k++) {
                        SINK[k & 1023] = json.fromJson(ring[k & (RING - 1)], TYPE);
                    }
                };
            }
            case "string" -> {
                // StringConverter (its toConnectData decodes the bytes into a String) + sluice.value.string.format=JSON
                StringConverter strings = new StringConverter();
                strings.configure(Map.of(), false);
                JsonValues json = new JsonValues(new BinaryValues(context));
                yield () -> {
                    for (int k = 0; k < records; k++) {
                        String text = (String) strings.toConnectData("t", ring[k & (RING - 1)]).value();
                        SINK[k & 1023] = json.fromJson(text, TYPE);
                    }
                };
            }
            case "jsonconverter" -> {
                // JsonConverter with schemas.enable=false (a Map per record) + the sink's Map -> binary object
                JsonConverter converter = new JsonConverter();
                converter.configure(Map.of("schemas.enable", "false"), false);
                BinaryValues values = new BinaryValues(context);
                yield () -> {
                    for (int k = 0; k < records; k++) {
                        Map<?, ?> map = (Map<?, ?>) converter.toConnectData("t", ring[k & (RING - 1)]).value();
                        SINK[k & 1023] = values.fromMap(map, TYPE);
                    }
                };
            }
            case "tokens" -> () -> {
                for (int k = 0; k < records; k++) {
                    sum += tokens(factory, ring[k & (RING - 1)]);
                }
            };
            case "open" -> () -> {
                for (int k = 0; k < records; k++) {
                    try (JsonParser p = factory.createParser(ring[k & (RING - 1)])) {
                        sum += p.nextToken().ordinal();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            };
            case "build" -> {
                BinaryObjectBuilder builder = context.builder(TYPE);
                yield () -> {
                    for (int k = 0; k < records; k++) {
                        SINK[k & 1023] = build(builder, k);
                    }
                };
            }
            default -> throw new IllegalArgumentException("no stage " + stage);
        };
    }

    /** Every token and value of one record, read as the conversion reads them. */
    private static long tokens(JsonFactory factory, byte[] utf8) {
        long h = 0;
        try (JsonParser p = factory.createParser(utf8)) {
            JsonToken t = p.nextToken();
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                h += p.currentName().length();
                switch (p.nextToken()) {
                    case VALUE_STRING -> h += p.getTextCharacters()[p.getTextOffset()] + p.getTextLength();
                    case VALUE_NUMBER_INT -> h += p.getLongValue();
                    case VALUE_NUMBER_FLOAT -> h += (long) p.getDoubleValue();
                    default -> h++;
                }
            }
            return h;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final String[] USERS = new String[100];

    static {
        for (int i = 0; i < USERS.length; i++) {
            USERS[i] = "user" + i;
        }
    }

    /** {@code StockOrderJson.schemaless(key)} of sluice-samples (StockOrder.forKey's values). */
    static String schemaless(long key) {
        return "{\"secCode\":\"SBER\",\"price\":" + price(key) + ",\"quantity\":" + (1 + key % 1000)
                + ",\"buySell\":\"" + ((key & 1) == 0 ? "B" : "S") + "\",\"secBoard\":\"TQBR\",\"account\":\""
                + "L01-00000F00\",\"user\":\"user" + (key % 100) + "\",\"currency\":\"RUB\",\"commission\":"
                + commission(key) + ",\"status\":\"NEW\",\"marketMaker\":" + (key % 10 == 0) + "}";
    }

    private static double price(long key) {
        return 100.0 + (key % 10_000) / 100.0;
    }

    private static double commission(long key) {
        return 0.01 * (1 + key % 7);
    }

    private static BinaryObject build(BinaryObjectBuilder b, long key) {
        return b.setField("secCode", "SBER").setDouble("price", price(key)).setLong("quantity", 1 + key % 1000)
                .setField("buySell", (key & 1) == 0 ? "B" : "S").setField("secBoard", "TQBR")
                .setField("account", "L01-00000F00").setField("user", USERS[(int) (key % 100)])
                .setField("currency", "RUB").setDouble("commission", commission(key)).setField("status", "NEW")
                .setBoolean("marketMaker", key % 10 == 0).build();
    }
}
