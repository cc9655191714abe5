package io.sluice.samples.load;

import io.sluice.Sluice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LoadGeneratorOptionsTest {

    /** Options are checked before any node starts: a node start here is a bug. */
    private static final NodeLauncher NO_NODE = new NodeLauncher() {
        @Override
        public Sluice start(Integer pageSize, long regionMaxBytes) {
            throw new AssertionError("no node may start for invalid options");
        }
    };

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return LoadGenerator.commandLine(new LoadGenerator(NO_NODE))
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--entries=-5               | --entries is -5; it must be between 1 and 1,000,000,000",
            "--entries=0                | --entries is 0; it must be between 1",
            "--threads=0                | --threads is 0; it must be between 1 and 1024",
            "--collision-ratio=1.5      | --collision-ratio is 1.5; it must be between 0 and 1",
            "--collision-ratio=-0.1     | --collision-ratio is -0.1; it must be between 0 and 1",
            "--collision-ratio=NaN      | --collision-ratio is NaN; it must be between 0 and 1",
            "--page-size=3000           | --page-size is 3000; it must be a power of two from 1024 to 16384",
            "--page-size=32768          | --page-size is 32768; it must be a power of two from 1024 to 16384",
            "--page-size=512            | --page-size is 512; it must be a power of two from 1024 to 16384",
            "--value-size=8             | --value-size is 8 bytes; it must be 0 (natural size) or between 16",
            "--buffer-size=0            | --buffer-size is 0; it must be between 1 and 1000000 entries",
            "--flush-interval=-1        | --flush-interval is -1 ms; it must be 0 (off) or positive",
            "--parallel-ops=0           | --parallel-ops is 0; it must be between 1 and 1024",
            "--partitions=70000         | --partitions is 70000; it must be between 1 and 65536",
            "--warmup=-1                | --warmup is -1; it must be between 0 and 1,000,000,000",
            "--repeat=0                 | --repeat is 0; it must be between 1 and 100",
            "--modes=put,bogus          | --modes has unknown mode 'bogus'; the modes are raw, put, putAll",
            "--modes=,                  | --modes is empty",
            "--values=json              | --values is 'json'; it must be binary, pojo or both",
            "--connect=localhost        | --connect is 'localhost'; it must be HOST:PORT",
            "--connect=localhost:99999  | --connect is 'localhost:99999'; it must be HOST:PORT",
            "--connect=h:1,localhost    | --connect is 'localhost'; it must be HOST:PORT",
            "--csv=/no/such/dir/r.csv   | --csv is /no/such/dir/r.csv; its directory /no/such/dir does not exist",
            "--plot=/no/such/dir/r.svg  | --plot is /no/such/dir/r.svg; its directory /no/such/dir does not exist",
            "--plot=run.jpg             | --plot is run.jpg; sluice-load draws SVG or PNG: name the file .svg or .png",
            "--fork-heap=2 gigabytes    | --fork-heap is '2 gigabytes'; it must be a size as -Xmx takes it, e.g. 2g or 1536m",
    })
    void invalidOptionIsRejectedNamingOptionValueAndLimit(String option, String message) {
        assertThat(run(option)).isEqualTo(2);
        assertThat(err.toString()).contains(message).contains("Usage: sluice-load");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void forkHeapAndNoForkExcludeEachOther() {
        assertThat(run("--no-fork", "--fork-heap", "1g")).isEqualTo(2);
        assertThat(err.toString()).contains("--fork-heap and --no-fork exclude each other");
    }

    @Test
    void connectAndStartNodeExcludeEachOther() {
        assertThat(run("--connect", "127.0.0.1:10800", "--start-node")).isEqualTo(2);
        assertThat(err.toString()).contains("--connect and --start-node exclude each other");
    }

    @Test
    void nonNumericValueIsRejectedByName() {
        assertThat(run("--entries", "lots")).isEqualTo(2);
        assertThat(err.toString()).contains("--entries").contains("lots");
    }

    @Test
    void defaultsLoadTwoMillionEntriesInEveryModeWithBinaryValues() {
        LoadGenerator generator = new LoadGenerator(NO_NODE);
        LoadGenerator.commandLine(generator).parseArgs();
        LoadSettings settings = generator.validate();
        assertThat(settings.entries()).isEqualTo(2_000_000);
        assertThat(settings.modes()).containsExactly(LoadMode.values());
        assertThat(settings.values()).containsExactly(ValueKind.BINARY);
        assertThat(settings.threads()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(settings.collisionRatio()).isZero();
        assertThat(settings.bufferSize()).isEqualTo(512);
        assertThat(settings.partitions()).isEqualTo(1024);
        assertThat(settings.pageSize()).isNull();
        assertThat(settings.warmupEntries()).isEqualTo(1_000_000);
    }

    @Test
    void modesAreParsedInOrderWithoutDuplicatesAndValuesBothMeansPojoThenBinary() {
        LoadGenerator generator = new LoadGenerator(NO_NODE);
        LoadGenerator.commandLine(generator).parseArgs("--modes", "streamer-isolated,RAW,putAll,raw",
                "--values", "both", "--page-size", "8192");
        LoadSettings settings = generator.validate();
        assertThat(settings.modes()).isEqualTo(List.of(LoadMode.STREAMER_ISOLATED, LoadMode.RAW, LoadMode.PUT_ALL));
        assertThat(settings.values()).containsExactly(ValueKind.POJO, ValueKind.BINARY);
        assertThat(settings.pageSize()).isEqualTo(8192);
    }
}
