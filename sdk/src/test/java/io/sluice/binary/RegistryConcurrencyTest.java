package io.sluice.binary;

import io.sluice.binary.internal.BinaryContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RegistryConcurrencyTest {

    record Tick(String symbol, long seq, double price) {
    }

    @Test
    @Timeout(60)
    void threadsRegisteringTheSameTypesAtOnceAgreeAndEveryObjectReadsBack() throws Exception {
        BinaryContext binary = new BinaryContext();
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<List<BinaryObject>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    start.await();
                    List<BinaryObject> made = new ArrayList<>();
                    BinaryObjectBuilder b = binary.builder("Shared");
                    for (int i = 0; i < 2000; i++) {
                        // every thread registers the same fields, some in a thread-specific order
                        if ((i + thread) % 3 == 0) {
                            b.setLong("seq", i).setField("who", "t" + thread).setField("f" + (i % 20), i);
                        } else {
                            b.setField("who", "t" + thread).setLong("seq", i);
                        }
                        made.add(b.build());
                        made.add(binary.toBinary(new Tick("S" + thread, i, i * 0.25)));
                    }
                    return made;
                }));
            }
            start.countDown();
            for (int t = 0; t < threads; t++) {
                List<BinaryObject> made = results.get(t).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < made.size(); i += 2) {
                    BinaryObject shared = made.get(i);
                    assertThat(shared.<Long>field("seq")).isEqualTo(i / 2L);
                    assertThat(shared.<String>field("who")).isEqualTo("t" + t);
                    byte[] bytes = shared.toBytes();
                    assertThat(binary.decode(bytes, 0, bytes.length, true)).isEqualTo(shared);
                    Tick tick = made.get(i + 1).deserialize(Tick.class);
                    assertThat(tick).isEqualTo(new Tick("S" + t, i / 2, (i / 2) * 0.25));
                }
            }
            assertThat(binary.type("Shared").fieldNames()).hasSize(22).doesNotHaveDuplicates();
            assertThat(binary.type("Shared").fieldTypeName("f7")).isEqualTo("int");
        } finally {
            pool.shutdownNow();
        }
    }
}
