package io.sluice.samples.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(60)
class StreamerBenchmarkTest {

    @Test
    void annotationProcessorListedTheBenchmarksForBenchmarksJar() throws IOException {
        try (InputStream list = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
            assertThat(list).as("META-INF/BenchmarkList written by the JMH annotation processor").isNotNull();
            String text = new String(list.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(text).contains("io.sluice.samples.bench.StreamerBenchmark")
                    .contains("addData").contains("buildValue");
        }
    }

    /** One benchmark call outside JMH: the setup, the measured methods and the teardown run. */
    @ParameterizedTest
    @CsvSource({"node, binary", "node, pojo", "discard, binary"})
    void benchmarkMethodsRun(String target, String values) {
        StreamerBenchmark benchmark = new StreamerBenchmark();
        benchmark.target = target;
        benchmark.values = values;
        benchmark.setUp();
        try {
            StreamerBenchmark.Producer producer = new StreamerBenchmark.Producer();
            producer.setUp(benchmark);
            long first = producer.next;
            benchmark.addData(producer);
            assertThat(producer.next).isEqualTo(first + StreamerBenchmark.ENTRIES_PER_CALL);
            benchmark.buildValue(producer, new Blackhole(
                    "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous."));
        } finally {
            benchmark.tearDown();
        }
    }
}
