package io.sluice.server.internal;

import io.sluice.CacheConfig;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.cluster.ClusterView;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.testing.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice-node.jar status} against real servers: a standalone node, and two members of a fixed map (a third
 * member of the map is down) whose status documents are in the node side's form.
 */
@Timeout(60)
class StatusCommandNodesTest {

    private final List<NodeEngine> nodes = new ArrayList<>();
    private final List<SluiceServer> servers = new ArrayList<>();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @AfterEach
    void stop() {
        servers.forEach(SluiceServer::closeConnections);
        nodes.forEach(NodeEngine::close);
    }

    private int status(String... args) {
        List<String> all = new ArrayList<>(List.of("status"));
        all.addAll(List.of(args));
        return new CommandLine(new NodeMain()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(all.toArray(String[]::new));
    }

    private SluiceServer server(ClusterView view) {
        NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(32L << 20).applyThreads(1).build());
        nodes.add(node);
        SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0), view);
        servers.add(server);
        return server;
    }

    @Test
    void aStandaloneNodeIsShownAsOne() {
        SluiceServer server = server(null);
        NodeEngine node = nodes.get(0);
        node.createCache(CacheConfig.named("orders").withPartitions(4));
        node.cache("orders").put(1L, "x");
        node.cache("orders").put(2L, "y");
        String address = "127.0.0.1:" + server.address().getPort();

        assertThat(status("--connect", address)).as(err.toString()).isZero();

        assertThat(out.toString()).contains("standalone node " + node.id() + " at " + address
                + " (not a cluster member)").containsPattern(node.id() + " +" + address + " +2 +ok");
    }

    @Test
    void membersMapAndMovesAreTabledAndAMemberDownIsARow() throws Exception {
        int down;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            down = s.getLocalPort();
        }
        int[] ports = new int[3];
        ClusterMap[] map = new ClusterMap[1];
        SluiceServer a = server(view(map, "a", "{\"nodeId\":\"a\",\"joined\":true,\"partitionsServed\":3,"
                + "\"entriesServed\":1200,\"moves\":{\"inProgress\":0,\"done\":2}}"));
        SluiceServer b = server(view(map, "b", "{\"nodeId\":\"b\",\"joined\":true,\"partitionsServed\":2,"
                + "\"entriesServed\":800,\"moves\":{\"inProgress\":1,\"done\":0,\"movingIn\":[{\"partition\":6,"
                + "\"from\":\"a\",\"takeover\":true}],\"movingOut\":[],\"waiting\":3,\"bytesSent\":0,"
                + "\"bytesReceived\":1572864,\"bytesPerSecond\":2048,\"etaSeconds\":90.0}}"));
        ports[0] = a.address().getPort();
        ports[1] = b.address().getPort();
        ports[2] = down;
        map[0] = new ClusterMap(17, List.of(new ClusterMap.Member("a", "127.0.0.1", ports[0]),
                new ClusterMap.Member("b", "127.0.0.1", ports[1]), new ClusterMap.Member("c", "127.0.0.1", ports[2])),
                new int[]{0, 1, 0, 1, 0, 2, -1, -1});

        assertThat(status("--connect", "127.0.0.1:" + down + ",127.0.0.1:" + ports[1], "--timeout", "2s"))
                .as(err.toString()).isZero();

        String table = out.toString();
        assertThat(table).contains("map version 17: 8 partitions, 3 members, 2 partitions without an owner (asked"
                + " 127.0.0.1:" + ports[1] + ")");
        // a: a member of an older version (no sent/received/eta); b: moving one partition in, three waiting
        assertThat(table).containsPattern("a +127.0.0.1:" + ports[0] + " +3 +3 +1200 +0 +\\? +2 +\\? +\\? +\\? +ok");
        assertThat(table).containsPattern("b +127.0.0.1:" + ports[1] + " +2 +2 +800 +1 +0 +0 +0 B +1.5 MiB +2m +ok");
        assertThat(table).containsPattern("c +127.0.0.1:" + down + " +1 +\\? +\\? +\\? +\\? +\\? +\\? +\\? +\\? +cannot"
                + " reach the node at 127.0.0.1:" + down);
        assertThat(table).contains("moves in progress: b: 1 in, 0 out, 3 waiting, 2.0 KiB/s, about 2m left");

        out.getBuffer().setLength(0);
        assertThat(status("--connect", "127.0.0.1:" + ports[0], "--json", "--timeout", "2s")).isZero();
        assertThat(out.toString()).contains("\"version\" : 17", "\"withoutOwner\" : 2", "\"entriesServed\" : 1200",
                "\"error\" : \"cannot reach the node at 127.0.0.1:" + down);
    }

    @Test
    void nodesWithTlsAreAskedThroughTls(@TempDir Path dir) throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "node");
        NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(32L << 20).applyThreads(1).build());
        nodes.add(node);
        SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0)
                .withTls(new TlsConfig(certs.keyStore(), TestCertificates.PASSWORD)).withToken("s3cret"));
        servers.add(server);
        String address = "127.0.0.1:" + server.address().getPort();

        // Plain TCP to a TLS port: refused, and the message says what to do.
        assertThat(status("--connect", address, "--token", "s3cret", "--timeout", "5s")).isEqualTo(2);
        assertThat(err.toString()).contains("accepts TLS connections only", "--tls");

        assertThat(status("--connect", address, "--token", "s3cret", "--trusted-certificates",
                certs.certificate().toString())).as(err.toString()).isZero();
        assertThat(out.toString()).containsPattern(node.id() + " +" + address + " +0 +ok");

        // A certificate the command does not trust: refused through TLS, naming the node.
        err.getBuffer().setLength(0);
        TestCertificates other = TestCertificates.make(dir, "other");
        assertThat(status("--connect", address, "--token", "s3cret", "--trusted-certificates",
                other.certificate().toString())).isEqualTo(2);
        assertThat(err.toString()).contains("cannot reach the node at " + address + " through TLS");
    }

    @Test
    void aMemberThatHasNotJoinedSaysSo() {
        ClusterMap[] map = {new ClusterMap(0, List.of(), new int[0])};
        SluiceServer server = server(view(map, "a", "{\"nodeId\":\"a\",\"joined\":false}"));
        String address = "127.0.0.1:" + server.address().getPort();

        assertThat(status("--connect", address)).as(err.toString()).isZero();

        assertThat(out.toString()).isEqualTo("the node at " + address + " has not joined its cluster yet: no map\n");
    }

    /** A member of a fixed map: serves what the map gives it, and answers a fixed status document. */
    private static ClusterView view(ClusterMap[] map, String id, String statusJson) {
        return new ClusterView() {
            @Override
            public ClusterMap map() {
                return map[0];
            }

            @Override
            public void checkServes(int partition) {
                if (!serves(partition)) {
                    throw new NotOwnerException("node " + id + " does not serve partition " + partition);
                }
            }

            @Override
            public void enter(int partition) {
                checkServes(partition);
            }

            @Override
            public void exit(int partition) {
            }

            @Override
            public boolean serves(int partition) {
                return id.equals(map[0].owner(partition));
            }

            @Override
            public String statusJson() {
                return statusJson;
            }
        };
    }
}
