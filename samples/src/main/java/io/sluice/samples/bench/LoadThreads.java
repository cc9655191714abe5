package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.node.SluiceNode;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code IndexBench load-threads}: the {@code load-one} load (a 500,000-entry warm-up, then the rounds), watching
 * where its threads wait. A sampler thread reads every ~0.3 ms (parked between reads) whether the adding thread and the node's apply threads
 * ({@code sluice-apply-*}) are runnable; per round it prints, by tenth of the round's wall time, the share of samples
 * in which the adding thread was adding (not yet in {@code close}) and each apply thread was runnable, then the share
 * of samples with 0, 1, 2 or 3 of those threads runnable (fewer than the machine's 2 cores: a core the load left
 * idle), and each kind of thread's CPU per entry. The sampler costs a few percent of a core; this shows the structure
 * of a load, not its rate (use {@code load-one} for that).
 */
final class LoadThreads {

    private static final int SLOTS = 1 << 20;

    private LoadThreads() {
    }

    static void run(long entries, int rounds, boolean indexed) {
        for (int round = 0; round <= rounds; round++) {
            round(round == 0 ? Math.min(entries, 500_000) : entries, indexed, round);
        }
    }

    private static void round(long entries, boolean indexed, int round) {
        try (SluiceNode node = SluiceNode.start(IndexBench.nodeFor(entries))) {
            CacheConfig config = CacheConfig.named("orders");
            node.createCache(indexed ? config.index("secCode").index("account") : config);
            List<Thread> apply = new ArrayList<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("sluice-apply")) {
                    apply.add(t);
                }
            }
            apply.sort(Comparator.comparing(Thread::getName));
            Thread adder = Thread.currentThread();
            long[] times = new long[SLOTS];
            int[] states = new int[SLOTS]; // bit 0: adding and runnable; bit 1: closing; bit 2+i: apply i runnable
            int[] count = {0};
            boolean[] done = {false};
            boolean[] closing = {false};
            Thread sampler = new Thread(() -> {
                while (!done[0] && count[0] < SLOTS) {
                    int state = adder.getState() == Thread.State.RUNNABLE ? 1 : 0;
                    state |= closing[0] ? 2 : 0;
                    for (int i = 0; i < apply.size(); i++) {
                        state |= apply.get(i).getState() == Thread.State.RUNNABLE ? 4 << i : 0;
                    }
                    times[count[0]] = System.nanoTime();
                    states[count[0]++] = state;
                    LockSupport.parkNanos(250_000);
                }
            }, "load-threads-sampler");
            sampler.setDaemon(true);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long adderCpu = mx.getCurrentThreadCpuTime();
            long applyCpu = 0;
            for (Thread t : apply) {
                applyCpu -= mx.getThreadCpuTime(t.getId());
            }
            long start = System.nanoTime();
            sampler.start();
            long closeAt = IndexBench.streamMarkingClose(node, "orders", entries, () -> closing[0] = true);
            long end = System.nanoTime();
            adderCpu = mx.getCurrentThreadCpuTime() - adderCpu;
            for (Thread t : apply) {
                applyCpu += mx.getThreadCpuTime(t.getId());
            }
            done[0] = true;
            try {
                sampler.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.out.printf("%s round %d: %,d entries, %,.0f entries/s, adding %d ms, close %d ms; CPU per entry:"
                            + " adding thread %.0f ns, apply threads %.0f ns%n", indexed ? "indexed" : "plain", round,
                    entries, entries / ((end - start) / 1e9), (closeAt - start) / 1_000_000,
                    (end - closeAt) / 1_000_000, (double) adderCpu / entries, (double) applyCpu / entries);
            print(times, states, count[0], apply.size(), start, end);
        }
    }

    private static void print(long[] times, int[] states, int n, int applyThreads, long start, long end) {
        int tenths = 10;
        int[] samples = new int[tenths];
        int[][] runnable = new int[tenths][2 + applyThreads];
        int[] busy = new int[4];
        for (int i = 0; i < n; i++) {
            int t = (int) Math.min(tenths - 1, (times[i] - start) * tenths / Math.max(1, end - start));
            int s = states[i];
            samples[t]++;
            boolean adding = (s & 1) != 0 && (s & 2) == 0;
            runnable[t][0] += adding ? 1 : 0;
            runnable[t][1] += (s & 2) != 0 ? 1 : 0;
            int threads = adding ? 1 : 0;
            for (int a = 0; a < applyThreads; a++) {
                boolean r = (s & (4 << a)) != 0;
                runnable[t][2 + a] += r ? 1 : 0;
                threads += r ? 1 : 0;
            }
            busy[Math.min(3, threads)]++;
        }
        StringBuilder line = new StringBuilder("  by tenth of the round: adding");
        for (int t = 0; t < tenths; t++) {
            line.append(String.format(" %3.0f%%", 100.0 * runnable[t][0] / Math.max(1, samples[t])));
        }
        line.append(" | closing");
        for (int t = 0; t < tenths; t++) {
            line.append(String.format(" %3.0f%%", 100.0 * runnable[t][1] / Math.max(1, samples[t])));
        }
        for (int a = 0; a < applyThreads; a++) {
            line.append(" | apply-").append(a);
            for (int t = 0; t < tenths; t++) {
                line.append(String.format(" %3.0f%%", 100.0 * runnable[t][2 + a] / Math.max(1, samples[t])));
            }
        }
        System.out.println(line);
        System.out.printf("  samples with 0/1/2/3 threads runnable: %.0f%% / %.0f%% / %.0f%% / %.0f%% (%d samples)%n",
                100.0 * busy[0] / n, 100.0 * busy[1] / n, 100.0 * busy[2] / n, 100.0 * busy[3] / n, n);
    }
}
