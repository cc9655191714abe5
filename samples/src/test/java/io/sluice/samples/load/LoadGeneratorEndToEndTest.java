package io.sluice.samples.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Small runs of every mode into real embedded nodes. */
@Timeout(120)
class LoadGeneratorEndToEndTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(LoadGenerator generator, String... args) {
        return LoadGenerator.commandLine(generator)
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
    }

    @Test
    void startNodeRunsEveryNodeModeEmbeddedAndRemoteSideBySide() {
        int exit = run(new LoadGenerator(), "--entries", "5000", "--threads", "2", "--warmup", "1000",
                "--modes", "raw,put,streamer-isolated", "--start-node", "--fork-heap", "256m",
                "--node-jar", Path.of("..", "receivers", "target", "sluice-node.jar").toString());
        String output = out.toString();
        assertThat(exit).as(output + err).isZero();
        assertThat(output).contains("node process listening on 127.0.0.1:");
        for (String mode : List.of("put", "streamer-isolated")) {
            assertThat(output).containsPattern("(?m)^" + mode + " +binary +5,000 .* yes$")
                    .containsPattern("(?m)^" + mode + " \\(remote\\) +binary +5,000 .* yes$")
                    .containsPattern("remote/embedded " + mode + " binary: \\d+\\.\\d\\dx");
        }
        assertThat(output).doesNotContainPattern("(?m)^raw \\(remote\\)");
    }

    @Test
    void everyModeWithBothValueKindsLoadsAndVerifies(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("load.csv");
        Path json = dir.resolve("load.json");
        int exit = run(new LoadGenerator(), "--no-fork", "--entries", "5000", "--threads", "2", "--values", "both",
                "--csv", csv.toString(), "--json", json.toString());
        String output = out.toString();
        assertThat(exit).as(output + err).isZero();
        // Not a terminal here: plain progress lines, no carriage returns or escape sequences.
        assertThat(output).doesNotContain("\r").doesNotContain("\u001b");
        for (LoadMode mode : LoadMode.values()) {
            List<String> values = mode == LoadMode.RAW ? List.of("fields") : List.of("pojo", "binary");
            for (String kind : values) {
                assertThat(output).as("row of %s/%s", mode, kind)
                        .containsPattern("(?m)^" + mode.cliName() + " +" + kind + " +5,000 .* yes$");
            }
        }
        assertThat(output).doesNotContain("did not verify");
        assertThat(Files.readAllLines(csv)).hasSize(1 + 11);
        JsonNode results = new ObjectMapper().readTree(json.toFile()).path("results");
        assertThat(results).hasSize(11);
        for (JsonNode row : results) {
            assertThat(row.path("verified").asBoolean()).as(row.toString()).isTrue();
            assertThat(row.path("actualSize").asLong()).isEqualTo(5000);
            assertThat(row.path("sampled").asInt()).isEqualTo(1000);
            assertThat(row.path("mismatched").asInt()).isZero();
        }
    }

    @Test
    void forkedRepeatsAreInterleavedAndPlottedEveryOneEvenWithoutShownProgress(@TempDir Path dir) throws Exception {
        Path plot = dir.resolve("run.png");
        Path json = dir.resolve("run.json");
        int exit = run(new LoadGenerator(), "--entries", "20000", "--threads", "2", "--warmup", "0",
                "--modes", "raw,streamer-isolated", "--repeat", "2", "--fork-heap", "256m", "--plot", plot.toString(),
                "--json", json.toString());
        String output = out.toString();
        assertThat(exit).as(output + err).isZero();
        assertThat(output).contains("each mode in a JVM of its own (-Xms256m -Xmx256m -XX:+AlwaysPreTouch), modes interleaved")
                .contains("plot written to " + plot);
        // A B A B: each run's JVM announced in that order, and each run's progress passed on.
        List<String> forks = output.lines().filter(l -> l.matches("\\[\\d/4\\] .*: in a JVM of its own \\(pid \\d+\\), warming up"))
                .map(l -> l.substring(0, l.indexOf(':'))).toList();
        assertThat(forks).containsExactly("[1/4] raw/fields, run 1 of 2", "[2/4] streamer-isolated/binary, run 1 of 2",
                "[3/4] raw/fields, run 2 of 2", "[4/4] streamer-isolated/binary, run 2 of 2");
        assertThat(output).contains("streamer-isolated/binary").contains("/ 20,000 entries")
                .doesNotContain(ForkProtocol.PREFIX);
        assertThat(output).containsPattern("(?m)^streamer-isolated +binary +20,000 +2 .* yes$");
        JsonNode results = new ObjectMapper().readTree(json.toFile()).path("results");
        assertThat(results).hasSize(2);
        for (JsonNode row : results) {
            assertThat(row.path("runs").asInt()).isEqualTo(2);
            assertThat(row.path("entriesPerSecondMin").asDouble()).isPositive()
                    .isLessThanOrEqualTo(row.path("entriesPerSecond").asDouble());
            assertThat(row.path("entriesPerCpuSecond").asDouble()).as("measured in the child").isPositive();
        }
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(plot.toFile());
        assertThat(image).as("a PNG").isNotNull();
        assertThat(image.getWidth()).isEqualTo(LoadCharts.WIDTH);
    }

    @Test
    void collisionsAndPaddingAreVerifiedAgainstTheDistinctKeys() {
        int exit = run(new LoadGenerator(), "--entries", "4000", "--threads", "3", "--collision-ratio", "0.5",
                "--value-size", "300", "--values", "both", "--no-progress", "--no-fork",
                "--modes", "putAll,streamer-isolated,streamer-individual,streamer-batched");
        String output = out.toString();
        assertThat(exit).as(output + err).isZero();
        assertThat(output).doesNotContain("/ 4,000 entries");
        assertThat(output.lines().filter(line -> line.matches(".* 4,000 .* yes"))).hasSize(8);
    }

    @Test
    void entriesRemovedAfterTheLoadAreReportedAsLostAndFailTheRun() {
        LoadGenerator generator = new LoadGenerator();
        generator.hook(run -> run.afterLoad(cache -> {
            for (long key = 0; key < 40; key++) {
                cache.remove(key);
            }
        }));
        int exit = run(generator, "--entries", "5000", "--threads", "1", "--modes", "streamer-isolated",
                "--no-progress", "--no-fork");
        String output = out.toString();
        assertThat(exit).isEqualTo(LoadGenerator.EXIT_NOT_VERIFIED);
        assertThat(output).containsPattern("streamer-isolated +binary +5,000 .* NO")
                .contains("streamer-isolated/binary: LOST 40 entries: the store holds 4,960, expected 5,000 distinct keys")
                .contains("1 of 1 loads did not verify");
    }
}
