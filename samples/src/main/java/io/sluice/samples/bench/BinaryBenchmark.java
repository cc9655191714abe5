package io.sluice.samples.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.samples.StockOrder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Writing and reading a StockOrder value: a reused binary builder, {@code toBinary} of the record,
 * and Jackson's {@code writeValueAsBytes} as the baseline; reading one field of a binary object
 * against deserializing all of it (and Jackson reading it back).
 *
 * <p>Every write benchmark starts from the same {@link StockOrder} instances (made once, cycled),
 * so only the serialization differs. Run:
 * {@code java -cp ... org.openjdk.jmh.Main BinaryBenchmark -f 1 -wi 2 -i 3 -w 1 -r 1}.
 *
 * <p>On a machine shared with other work JMH's wall-clock times swing widely; {@link #main} runs the
 * same methods in a plain loop and reports <em>thread CPU time</em> per operation, which time spent
 * descheduled does not inflate (a cross-check, not a replacement for JMH).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BinaryBenchmark {

    private static final int ORDERS = 1024;

    private final BinaryContext binary = new BinaryContext();
    private final ObjectMapper mapper = new ObjectMapper();
    private final StockOrder[] orders = new StockOrder[ORDERS];
    private final Long[] keys = new Long[ORDERS];
    private final GrowableBuffer keyBuffer = new GrowableBuffer(64);
    private BinaryObjectBuilder builder;
    private BinaryObject built;
    private byte[] json;
    private int next;

    @Setup
    public void setUp() throws Exception {
        for (int i = 0; i < ORDERS; i++) {
            orders[i] = StockOrder.forKey(i);
            keys[i] = 1_000_000L + i;
        }
        builder = binary.builder("StockOrder");
        built = buildWithReusedBuilder();
        json = mapper.writeValueAsBytes(orders[0]);
        binary.toBinary(orders[0]);
    }

    private StockOrder nextOrder() {
        return orders[next++ & (ORDERS - 1)];
    }

    @Benchmark
    public BinaryObject buildWithReusedBuilder() {
        StockOrder o = nextOrder();
        return builder.setField("secCode", o.secCode())
                .setDouble("price", o.price())
                .setLong("quantity", o.quantity())
                .setField("buySell", o.buySell())
                .setField("secBoard", o.secBoard())
                .setField("account", o.account())
                .setField("user", o.user())
                .setField("currency", o.currency())
                .setDouble("commission", o.commission())
                .setField("status", o.status())
                .setBoolean("marketMaker", o.marketMaker())
                .build();
    }

    /** The same with boxed primitives through {@code setField(String, Object)}. */
    @Benchmark
    public BinaryObject buildWithReusedBuilderBoxed() {
        StockOrder o = nextOrder();
        return builder.setField("secCode", o.secCode())
                .setField("price", o.price())
                .setField("quantity", o.quantity())
                .setField("buySell", o.buySell())
                .setField("secBoard", o.secBoard())
                .setField("account", o.account())
                .setField("user", o.user())
                .setField("currency", o.currency())
                .setField("commission", o.commission())
                .setField("status", o.status())
                .setField("marketMaker", o.marketMaker())
                .build();
    }

    @Benchmark
    public BinaryObject toBinaryFromRecord() {
        return binary.toBinary(nextOrder());
    }

    @Benchmark
    public byte[] jacksonWriteValueAsBytes() throws Exception {
        return mapper.writeValueAsBytes(nextOrder());
    }

    /** The streamer's key path: a (boxed, as the streamer gets it) Long key encoded into a reused buffer. */
    @Benchmark
    public int encodeLongKey() {
        keyBuffer.reset();
        binary.encode(keys[next++ & (ORDERS - 1)], keyBuffer);
        return keyBuffer.position();
    }

    @Benchmark
    public Object readOneField() {
        return built.field("price");
    }

    @Benchmark
    public StockOrder deserializeWholeObject() {
        return built.deserialize(StockOrder.class);
    }

    @Benchmark
    public StockOrder jacksonReadValue() throws Exception {
        return mapper.readValue(json, StockOrder.class);
    }

    /** Thread CPU time per operation of each benchmark method: 6 rounds of 1,000,000 calls. */
    public static void main(String[] args) throws Exception {
        BinaryBenchmark b = new BinaryBenchmark();
        b.setUp();
        String[] names = {"buildWithReusedBuilder", "buildWithReusedBuilderBoxed", "toBinaryFromRecord",
                "jacksonWriteValueAsBytes", "encodeLongKey", "readOneField", "deserializeWholeObject",
                "jacksonReadValue"};
        Callable<?>[] ops = {b::buildWithReusedBuilder, b::buildWithReusedBuilderBoxed, b::toBinaryFromRecord,
                b::jacksonWriteValueAsBytes, b::encodeLongKey, b::readOneField, b::deserializeWholeObject,
                b::jacksonReadValue};
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int calls = 1_000_000;
        long sink = 0;
        for (int round = 0; round < 6; round++) {
            StringBuilder line = new StringBuilder(round < 2 ? "warm-up " : "round   ").append(round).append(':');
            for (int k = 0; k < ops.length; k++) {
                long start = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < calls; i++) {
                    sink ^= System.identityHashCode(ops[k].call()); // not hashCode(): a v2 object hashes its bytes when asked
                }
                long nanos = (threads.getCurrentThreadCpuTime() - start) / calls;
                line.append(' ').append(names[k]).append('=').append(nanos);
            }
            System.out.println(line.append(" ns/op cpu"));
        }
        if (sink == 42) {
            System.out.println();
        }
    }
}
