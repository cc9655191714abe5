package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ForkProtocolTest {

    @Test
    void aResultLineCarriesEveryFigureAndTheProgressSamplesExactly() {
        ProgressTimeline samples = ProgressTimeline.of(new long[]{100_000_000L, 200_000_001L}, new long[]{1024, 5000});
        ModeResult sent = new ModeResult("streamer-isolated", "binary", 5000, 0.123456789012, 540_000, 5000, 5000,
                1000, 0, null, samples, 0.987654321);
        String line = ForkProtocol.line(sent);
        assertThat(line).startsWith(ForkProtocol.PREFIX).doesNotContain("\n");
        ModeResult received = ForkProtocol.parse(line);
        assertThat(received).usingRecursiveComparison().ignoringFields("progress").isEqualTo(sent);
        assertThat(received.progress().size()).isEqualTo(2);
        assertThat(received.progress().nanos(1)).isEqualTo(200_000_001L);
        assertThat(received.progress().entries(1)).isEqualTo(5000);
        assertThat(received.progress().entriesPerSecond(1)).isEqualTo(samples.entriesPerSecond(1));
    }

    @Test
    void aFailedRunKeepsItsProblemAndUnknownSize() {
        ModeResult failed = ModeResult.failed("put", "pojo", 100, 0.3, 100, new IllegalStateException("a \"quoted\"\nboom"));
        ModeResult received = ForkProtocol.parse(ForkProtocol.line(failed));
        assertThat(received.problem()).isEqualTo("failed: IllegalStateException: a \"quoted\"\nboom");
        assertThat(received.actualSize()).isEqualTo(-1);
        assertThat(received.verified()).isFalse();
        assertThat(received.progress().size()).isZero();
    }

    @Test
    void aLineThatIsNoResultIsRefusedSayingWhy() {
        assertThatThrownBy(() -> ForkProtocol.parse("[====] put/binary 10 entries"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a result line");
        assertThatThrownBy(() -> ForkProtocol.parse(ForkProtocol.PREFIX + "{\"mode\":"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> ForkProtocol.parse(ForkProtocol.PREFIX + "[1]"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no JSON object");
        String withoutSeconds = ForkProtocol.line(new ModeResult("put", "binary", 1, 1, 1, 1, 1, 1, 0, null))
                .replace("\"seconds\":1.0,", "");
        assertThatThrownBy(() -> ForkProtocol.parse(withoutSeconds))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no 'seconds'");
    }

    @Test
    void relayPassesProgressOnAsItComesAndKeepsTheResultLinesBack() throws Exception {
        ModeResult one = new ModeResult("put", "binary", 10, 1, 1, 10, 10, 10, 0, null);
        ModeResult two = new ModeResult("put", "binary", 10, 2, 1, 10, 10, 10, 0, null);
        String child = "put/binary  5 / 10 entries\n"
                + "\r[==>  ] put/binary\r[=====] put/binary\n"
                + ForkProtocol.line(one) + "\n"
                + ForkProtocol.line(two) + "\r\n"
                + "last words without a newline";
        StringWriter shown = new StringWriter();
        List<ModeResult> results = ForkProtocol.relay(new StringReader(child), new PrintWriter(shown));
        assertThat(results).extracting(ModeResult::seconds).containsExactly(1.0, 2.0);
        assertThat(shown.toString()).isEqualTo("put/binary  5 / 10 entries\n"
                + "\r[==>  ] put/binary\r[=====] put/binary\n"
                + "last words without a newline");
    }

    @Test
    void relayOfAChildThatPrintedNoResultReturnsNone() throws Exception {
        StringWriter shown = new StringWriter();
        assertThat(ForkProtocol.relay(new StringReader("Exception in thread main\n"), new PrintWriter(shown))).isEmpty();
        assertThat(shown.toString()).isEqualTo("Exception in thread main\n");
    }
}
