package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class DirectMemoryTest {

    /**
     * The limit read in a child JVM started with the flags: the flag when it is set, else the maximum
     * heap (the JVM's own default). Before, this test asserted the parent pom's flag for the test JVM.
     */
    @Test
    void limitIsTheFlagWhenSetElseTheMaximumHeap() throws Exception {
        assertThat(child("-Xmx128m", "-XX:MaxDirectMemorySize=48m"))
                .as("limit, max heap").startsWith((48L << 20) + " ");
        String[] unset = child("-Xmx96m").split(" ");
        assertThat(Long.parseLong(unset[0])).as("limit without the flag: the child's maximum heap")
                .isEqualTo(Long.parseLong(unset[1])).isBetween(64L << 20, 96L << 20);
    }

    @Test
    void warnsOnlyWhenTheRegionMayOutgrowTheLimitAndSuggestsEnough() {
        assertThat(DirectMemory.warning(512L << 20, 512L << 20)).isNull();
        assertThat(DirectMemory.warning(768L << 20, 512L << 20)).isEqualTo("warning: a node's data region may take "
                + "up to 768 MiB of direct memory, but -XX:MaxDirectMemorySize is 512 MiB (it defaults to -Xmx); a "
                + "mode whose store outgrows it fails with a full data region: run java with "
                + "-XX:MaxDirectMemorySize=1g");
        assertThat(DirectMemory.warning(3L << 30, 1L << 30)).endsWith("-XX:MaxDirectMemorySize=3g");
    }

    /** Runs {@link Probe} in a JVM with these flags; its output is "limit maxHeap". */
    private static String child(String... flags) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(List.of(flags));
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                Probe.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    static final class Probe {
        public static void main(String[] args) {
            System.out.println(DirectMemory.limit() + " " + Runtime.getRuntime().maxMemory());
        }
    }
}
