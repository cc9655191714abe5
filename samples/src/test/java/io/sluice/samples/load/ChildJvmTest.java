package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChildJvmTest {

    @Test
    void aChildKeepsThisJvmsFlagsButItsOwnFixedPreTouchedHeapAndNoDebugger() {
        List<String> parent = List.of("-Xms512m", "-Xmx4g", "-XX:+UseG1GC", "-XX:-AlwaysPreTouch",
                "-agentlib:jdwp=transport=dt_socket,server=y,address=5005", "-Dsluice.pageMemory=direct",
                "-XX:MaxHeapSize=1g");
        assertThat(ChildJvm.inherited(parent)).containsExactly("-XX:+UseG1GC", "-Dsluice.pageMemory=direct");
        assertThat(ChildJvm.heapOf(parent)).isEqualTo("4g");
        assertThat(ChildJvm.heapOf(List.of("-XX:+UseG1GC"))).isEqualTo(ChildJvm.DEFAULT_HEAP);
        ChildJvm jvm = new ChildJvm("/opt/jdk/bin/java", ChildJvm.inherited(parent), "4g", "samples/target/sluice-load.jar");
        assertThat(jvm.command(List.of("--modes", "put"))).containsExactly("/opt/jdk/bin/java", "-XX:+UseG1GC",
                "-Dsluice.pageMemory=direct", "-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "-cp",
                "samples/target/sluice-load.jar", LoadGenerator.class.getName(), "--modes", "put");
    }

    @Test
    void heapSizesAreThoseXmxTakes() {
        assertThat(ChildJvm.isHeapSize("2g")).isTrue();
        assertThat(ChildJvm.isHeapSize("1536M")).isTrue();
        assertThat(ChildJvm.isHeapSize("1073741824")).isTrue();
        assertThat(ChildJvm.isHeapSize("0g")).isFalse();
        assertThat(ChildJvm.isHeapSize("2 g")).isFalse();
        assertThat(ChildJvm.isHeapSize("-2g")).isFalse();
    }

    @Test
    void aChildJvmThatCannotStartIsReportedWithItsExitStatusAndStandardError() {
        ChildJvm likeThis = ChildJvm.likeThisOne("64m");
        ChildJvm broken = new ChildJvm(likeThis.java(), List.of("-XX:+NoSuchSluiceFlag"), "64m", likeThis.classPath());
        LoadSettings settings = new LoadSettings(10, 1, List.of(LoadMode.RAW), List.of(ValueKind.BINARY), 0, 0, 512,
                1000, 8, null, 1024, 0, 1);
        StringWriter out = new StringWriter();
        ForkedRun run = new ForkedRun(settings, null, broken, ProgressReporter.Style.NONE, false, new PrintWriter(out),
                new PrintWriter(new StringWriter()));
        assertThatThrownBy(run::run).isInstanceOf(ForkedRun.ForkFailedException.class)
                .hasMessageContaining("the JVM of [1/1] raw/fields (pid ")
                .hasMessageContaining("exited with status 1")
                .hasMessageContaining("the end of its standard error:")
                .hasMessageContaining("NoSuchSluiceFlag")
                .satisfies(e -> assertThat(((ForkedRun.ForkFailedException) e).exitCode()).isEqualTo(1));
    }
}
