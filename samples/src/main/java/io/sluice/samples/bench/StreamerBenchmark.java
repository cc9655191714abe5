package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.StreamerOptions;
import io.sluice.binary.Binary;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.samples.StockOrder;
import io.sluice.samples.load.StockOrderFields;
import io.sluice.streamer.internal.Streamer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The streamer's client-side hot path: {@code addData} of StockOrder values into an embedded node,
 * one operation per entry. With {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes allocated
 * per entry; {@link #buildValue} is the value alone, so the streamer's own share is the difference.
 *
 * <p>{@code target=node} streams into an embedded node: keys cycle over {@value #KEYS} keys with the
 * isolated receiver (insert-if-absent), so the store stops growing after the first pass and an
 * iteration of any length fits the data region; the node's apply threads run in the same JVM, so
 * {@code -prof gc} counts their allocation too. {@code target=discard} hands the batches to a
 * {@link DiscardingTransport} instead: the client side alone.
 *
 * <pre>java -jar samples/target/benchmarks.jar Streamer -prof gc</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xmx512m", "-XX:MaxDirectMemorySize=2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class StreamerBenchmark {

    /** Entries added per benchmark call; the results are per entry. */
    static final int ENTRIES_PER_CALL = 1000;
    /** Distinct keys the producers cycle over. */
    static final int KEYS = 1 << 20;

    /** {@code binary}: a reused builder writes each value; {@code pojo}: a StockOrder record per entry. */
    @Param({"binary"})
    public String values;

    /** {@code node}: an embedded node stores the entries; {@code discard}: batches are acknowledged unstored. */
    @Param({"node", "discard"})
    public String target;

    private SluiceNode node;
    private Binary binary;
    private DataStreamer<Long, Object> streamer;

    private static final AtomicLong PRODUCERS = new AtomicLong();

    /** One producer thread's builder and key cursor. */
    @State(Scope.Thread)
    public static class Producer {
        BinaryObjectBuilder builder;
        long next;

        @Setup(Level.Trial)
        public void setUp(StreamerBenchmark benchmark) {
            builder = benchmark.binary.builder(StockOrderFields.TYPE_NAME);
            // Producer threads start apart in the key space.
            next = PRODUCERS.getAndIncrement() * (KEYS / 8);
        }

        Object value(String values, long key) {
            return "pojo".equals(values) ? StockOrder.forKey(key) : StockOrderFields.build(builder, key, null);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        if ("discard".equals(target)) {
            BinaryContext context = new BinaryContext();
            binary = context;
            streamer = new Streamer<>("orders", StreamerOptions.DEFAULT, new DiscardingTransport(), context, () -> { });
        } else {
            node = SluiceNode.start(NodeConfig.builder().dataRegionMaxSize(1L << 30).build());
            node.createCache(CacheConfig.named("orders"));
            binary = node.binary();
            streamer = node.dataStreamer("orders", StreamerOptions.DEFAULT);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            streamer.close();
        } finally {
            if (node != null) {
                node.close();
            }
        }
    }

    /** Builds each value and adds it to the streamer. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES_PER_CALL)
    public void addData(Producer producer) {
        long key = producer.next;
        for (int i = 0; i < ENTRIES_PER_CALL; i++) {
            long k = key++ & (KEYS - 1);
            streamer.addData(k, producer.value(values, k));
        }
        producer.next = key;
    }

    /** Builds each value only: the part of {@link #addData} that is not the streamer. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES_PER_CALL)
    public void buildValue(Producer producer, Blackhole sink) {
        long key = producer.next;
        for (int i = 0; i < ENTRIES_PER_CALL; i++) {
            long k = key++ & (KEYS - 1);
            sink.consume(producer.value(values, k));
        }
        producer.next = key;
    }
}
