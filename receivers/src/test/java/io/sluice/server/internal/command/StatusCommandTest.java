package io.sluice.server.internal.command;

import io.sluice.server.internal.NodeMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code sluice-node.jar status}: bad arguments and unreachable nodes end with exit 2 and a message. */
@Timeout(60)
class StatusCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return new CommandLine(new NodeMain()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
    }

    @Test
    void withoutConnectItSaysWhatIsMissing() {
        assertThat(run("status")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--connect=HOST:PORT'");
    }

    @Test
    void aMalformedAddressIsNamed() {
        assertThat(run("status", "--connect", "127.0.0.1:10800,nohost")).isEqualTo(2);
        assertThat(err.toString()).contains("status: --connect 'nohost' is not host:port with a port from 1 to 65535");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aBadTimeoutIsNamed() {
        assertThat(run("status", "--connect", "127.0.0.1:10800", "--timeout", "5")).isEqualTo(2);
        assertThat(err.toString()).contains("'5' is not a duration: a number and a unit, ms, s, m or h");
    }

    @Test
    void aNodeThatDoesNotAnswerIsNamed() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        assertThat(run("status", "--connect", "127.0.0.1:" + closed, "--timeout", "2s")).isEqualTo(2);
        assertThat(err.toString()).contains("status: cannot reach the node at 127.0.0.1:" + closed);
        assertThat(run("status", "--connect", "127.0.0.1:" + closed + ",127.0.0.1:" + closed)).isEqualTo(2);
        assertThat(err.toString()).contains("none of [127.0.0.1:" + closed + ", 127.0.0.1:" + closed + "] answered");
    }
}
