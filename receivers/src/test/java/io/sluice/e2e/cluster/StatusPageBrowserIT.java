package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.server.internal.NodeProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The node's status page ({@code /status} on its metrics port) in a real headless Chromium, against a cluster of
 * node processes while a third node joins and partitions move to it: the DOM after the page's script ran has one
 * cell per partition, cells owned by each member, partitions marked moving and bytes moving while the move lasts
 * (a client streams meanwhile; its entries/s per member are in the page's document), and none moving once it is done. A screenshot taken during
 * the move is left under {@code receivers/target/status-page-*} (its path is printed).
 *
 * <p>Needs Chromium ({@code /usr/bin/chromium}, Debian package {@code chromium}; {@code -Dsluice.chromium=PATH} for
 * another): skipped without it, unless the environment has {@code SLUICE_REQUIRE_BROWSER=1} (CI sets it), then it
 * fails.
 */
@Timeout(240)
class StatusPageBrowserIT {

    private static final Path CHROMIUM = Path.of(System.getProperty("sluice.chromium", "/usr/bin/chromium"));
    /** Few partitions settle fast and make a grid one can read; the move still takes one permit per partition. */
    private static final int PARTITIONS = 128;
    /** Entries loaded, half before the join: enough for the move (one partition at a time) to last seconds. */
    private static final long ENTRIES = Long.getLong("sluice.page.it.entries", 200_000);
    private static final Pattern METRICS = Pattern.compile("Prometheus text at http://127\\.0\\.0\\.1:(\\d+)/metrics");
    private static final Pattern CELL = Pattern.compile("<div class=\"cell[^\"]*\" data-p=\"(\\d+)\"[^>]*>");
    private static final Pattern OWNER = Pattern.compile("data-owner=\"([^\"]*)\"");
    private static final Pattern MOVING = Pattern.compile("<div class=\"cell( none)? moving\"");
    private static final Pattern ENTRIES_PER_SECOND = Pattern.compile("\"entriesPerSecond\":[1-9]");
    /** A member's status naming a partition being built there, or waiting to be. */
    private static final Pattern BUILDING = Pattern.compile("\"(movingIn|waitingPartitions)\":\\[[0-9{]");
    private static final Pattern UPDATES = Pattern.compile("<body data-updates=\"(\\d+)\"");

    @Test
    void thePageDrawsTheMapAndTheMoveOfAJoiningNode() throws Exception {
        boolean present = Files.isExecutable(CHROMIUM);
        if (!present && "1".equals(System.getenv("SLUICE_REQUIRE_BROWSER"))) {
            fail(CHROMIUM + " is missing and SLUICE_REQUIRE_BROWSER=1: install the Debian package 'chromium'");
        }
        assumeTrue(present, CHROMIUM + " is missing: install the Debian package 'chromium' to run this test");
        try (ClusterProcesses cluster = ClusterProcesses.create("page", Duration.ofSeconds(60), PARTITIONS)) {
            try {
                // One partition built at a time, and (moves by files) a low byte rate: the move lasts. The ~40
                // partition files node-3 takes hold ~25 KB each: at 48 KiB/s from each sender the move lasts ~20 s,
                // long enough for a browser's dumps on an idle machine too (at 4 MiB/s it was over in under a
                // second there, between two dumps).
                cluster.nodeFileKeys("\"metricsPort\": 0",
                        "\"maxConcurrentMoves\": 1, \"moveBytesPerSecond\": 49152");
                cluster.startAll("node-1", "node-2");
                cluster.awaitSettled(ClusterProcesses.SETTLE);
                int port = metricsPort(cluster.node("node-1"));
                Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "status-page-");
                try (Sluice client = cluster.client()) {
                    client.getOrCreateCache(CacheConfig.named(OrderLoad.CACHE));
                    // A load paced over 15 s: half of it before the join, the rest during the move.
                    OrderLoad load = OrderLoad.start(client, 0, ENTRIES, "load", Duration.ofSeconds(15));
                    // Under the load, the page's document gives the members' entries/s (from the document before).
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(600)).until(
                            () -> ENTRIES_PER_SECOND.matcher(statusJson(port)).find());
                    load.awaitAcknowledged(ENTRIES / 2, Duration.ofSeconds(90));
                    long joinAt = System.nanoTime();
                    cluster.start("node-3");
                    // A browser takes seconds to start: it is started once a member builds a partition.
                    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(
                            () -> cluster.runningIds().stream().anyMatch(id -> BUILDING.matcher(cluster.status(id))
                                    .find()));
                    // Dumps until one catches partitions moving (the join's takeovers, one at a time).
                    Path shot = dir.resolve("status-during-move.png");
                    Page during = null;
                    List<String> seen = new ArrayList<>();
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (during == null && System.nanoTime() < until) {
                        Page p = Page.of(dump(port, dir, shot));
                        Matcher w = Pattern.compile("(\\d+) without an owner").matcher(p.html);
                        seen.add(p.moving + " moving, owners " + p.owners + (w.find() ? ", " + w.group(1)
                                + " without an owner" : ""));
                        if (p.moving > 0) {
                            during = p;
                        }
                    }
                    assertThat(during).as("a dump of the page during the move (dumps: %s)", seen).isNotNull();
                    System.out.printf("StatusPageBrowserIT: %d partitions marked moving %.1f s after the join;"
                            + " screenshot %s; dumps %s%n", during.moving, (System.nanoTime() - joinAt) / 1e9, shot, seen);
                    assertThat(during.cells).as("cells during the move").hasSize(PARTITIONS);
                    assertThat(during.owners).as("owners during the move").contains("node-1", "node-2");
                    assertThat(during.html).as("bytes moving shown").containsPattern("id=\"bytes-moving\"[^>]*>, bytes"
                            + " moving at [0-9.]+ (B|KiB|MiB|GiB)/s");
                    assertThat(during.html).as("node-3's row")
                            .containsPattern("<tr class=\"member\" data-id=\"node-3\">");
                    assertThat(during.html).as("an entries/s column").containsPattern("<td class=\"rate\">[0-9?,]+</td>");

                    load.assertCompleted(ENTRIES, Duration.ofSeconds(120));
                }

                cluster.awaitSettled(ClusterProcesses.SETTLE);
                // The new backups catch up after the map settled: every member done building.
                await().atMost(Duration.ofSeconds(60)).until(() -> cluster.runningIds().stream()
                        .noneMatch(id -> BUILDING.matcher(cluster.status(id)).find()));
                Page after = Page.of(dump(port, dir, null));
                assertThat(after.cells).as("cells after the move").hasSize(PARTITIONS);
                assertThat(after.owners).as("owners after the move")
                        .containsExactlyInAnyOrder("node-1", "node-2", "node-3");
                assertThat(after.moving).as("partitions marked moving after the move").isZero();
                assertThat(after.html).contains("No partitions moving.");
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }

    /** What a dump of the page shows. */
    private record Page(String html, Set<Integer> cells, Set<String> owners, int moving) {
        static Page of(String html) {
            Set<Integer> cells = new TreeSet<>();
            Set<String> owners = new TreeSet<>();
            Matcher c = CELL.matcher(html);
            while (c.find()) {
                cells.add(Integer.parseInt(c.group(1)));
                Matcher o = OWNER.matcher(c.group());
                if (o.find() && !o.group(1).isEmpty()) {
                    owners.add(o.group(1));
                }
            }
            int moving = 0;
            for (Matcher m = MOVING.matcher(html); m.find(); ) {
                moving++;
            }
            Matcher u = UPDATES.matcher(html);
            assertThat(u.find() && Integer.parseInt(u.group(1)) > 0).as("the page's script drew it: %s", html)
                    .isTrue();
            return new Page(html, cells, owners, moving);
        }
    }

    /**
     * The page's DOM once its script ran (1.5 s of its virtual time: two refreshes), from a fresh headless
     * Chromium; with a screenshot into {@code shot} if not null. Bounded: the browser is killed after 45 s.
     */
    private static String dump(int port, Path dir, Path shot) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(dir, "chromium-");
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--virtual-time-budget=1500", "--window-size=1200,760", "--dump-dom"));
        if (shot != null) {
            command.add("--screenshot=" + shot);
        }
        command.add("http://127.0.0.1:" + port + "/status");
        Path out = dir.resolve("dom.html");
        Process chromium = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(dir.resolve("chromium.log").toFile()).start();
        try {
            if (!chromium.waitFor(45, TimeUnit.SECONDS)) {
                throw new AssertionError("Chromium did not finish within 45 s: " + command);
            }
        } finally {
            chromium.descendants().forEach(ProcessHandle::destroyForcibly);
            chromium.destroyForcibly();
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static String statusJson(int port) throws IOException, InterruptedException {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + port + "/status.json"))
                .timeout(Duration.ofSeconds(20)).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    private static int metricsPort(NodeProcess node) {
        AtomicInteger port = new AtomicInteger();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Matcher m = METRICS.matcher(node.log());
            if (m.find()) {
                port.set(Integer.parseInt(m.group(1)));
            }
            return port.get() > 0;
        });
        return port.get();
    }
}
