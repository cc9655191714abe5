package io.sluice.samples.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LoadPlotTest {

    private static final long MS = 1_000_000L;

    /** A verified result whose progress went through the given (milliseconds, entries) samples. */
    private static ModeResult result(String mode, long entries, double seconds, long[][] samples) {
        ProgressTimeline timeline = new ProgressTimeline(100 * MS);
        for (int i = 0; i < samples.length; i++) {
            if (i < samples.length - 1) {
                timeline.sample(samples[i][0] * MS, samples[i][1]);
            } else {
                timeline.last(samples[i][0] * MS, samples[i][1]);
            }
        }
        return new ModeResult(mode, "binary", entries, seconds, entries * 100, entries, entries, 1000, 0, null,
                timeline);
    }

    private static List<ModeRuns> run() {
        return List.of(
                // Three runs: 2,000,000 in 1.6 s (a slow start, then steady), in 1.0 s and in 2.0 s.
                new ModeRuns(List.of(
                        result("streamer-isolated", 2_000_000, 1.6, new long[][]{
                                {400, 10_000}, {800, 700_000}, {1200, 1_400_000}, {1600, 2_000_000}}),
                        result("streamer-isolated", 2_000_000, 1.0, new long[][]{{500, 1_000_000}, {1000, 2_000_000}}),
                        result("streamer-isolated", 2_000_000, 2.0, new long[][]{{1000, 1_000_000}, {2000, 2_000_000}}))),
                // One run: 300,000 in 0.9 s, with a stall from 0.3 s to 0.6 s.
                ModeRuns.of(result("put", 300_000, 0.9, new long[][]{{300, 150_000}, {600, 150_000}, {900, 300_000}})),
                ModeRuns.of(ModeResult.failed("putAll", "binary", 300_000, 0.2, 300_000,
                        new IllegalStateException("boom"))));
    }

    @Test
    void eachModesBarIsItsMedianAndEveryRunIsADotOnIt() {
        CategoryChart chart = LoadCharts.rates(run());
        CategorySeries isolated = chart.getSeriesMap().get("streamer-isolated/binary");
        CategorySeries put = chart.getSeriesMap().get("put/binary");
        // One bar per mode at its own category, the others at 0; the median of 1.25 M, 2 M and 1 M.
        assertThat(values(isolated)).containsExactly(1_250_000.0, null, null);
        assertThat(values(put).get(1)).isCloseTo(333_333.3, org.assertj.core.api.Assertions.within(0.1));
        // A failed mode has no bar, and its legend says why.
        assertThat(values(chart.getSeriesMap().get("putAll/binary (failed: failed: IllegalStateException: boom)")))
                .containsOnlyNulls();
        // One dot series per run: run k's rate of each mode that had a k-th run.
        assertThat(values(chart.getSeriesMap().get("run 1")).get(0)).isEqualTo(1_250_000.0);
        assertThat(values(chart.getSeriesMap().get("run 2"))).containsExactly(2_000_000.0, null, null);
        assertThat(values(chart.getSeriesMap().get("run 3"))).containsExactly(1_000_000.0, null, null);
        assertThat(chart.getSeriesMap()).hasSize(6);
    }

    @Test
    void aLoadThatDidNotVerifyKeepsItsBarAndIsMarked() {
        ModeResult lost = new ModeResult("put", "pojo", 5000, 0.5, 500_000, 5000, 4960, 1000, 0, "LOST 40 entries");
        CategoryChart chart = LoadCharts.rates(List.of(ModeRuns.of(lost)));
        assertThat(values(chart.getSeriesMap().get("put/pojo (not verified)"))).containsExactly(10_000.0);
    }

    @Test
    void everyRunOfEveryModeIsALineWithOnePointPerProgressSampleInItsModesColour() {
        List<ModeRuns> modes = run();
        XYChart chart = LoadCharts.overTime(modes);
        // The failed mode recorded no samples and draws no line.
        assertThat(chart.getSeriesMap()).containsOnlyKeys("streamer-isolated/binary #1", "streamer-isolated/binary #2",
                "streamer-isolated/binary #3", "put/binary");
        XYSeries first = chart.getSeriesMap().get("streamer-isolated/binary #1");
        ProgressTimeline samples = modes.get(0).runs().get(0).progress();
        assertThat(first.getXData()).hasSize(samples.size());
        for (int i = 0; i < samples.size(); i++) {
            assertThat(first.getXData()[i]).isEqualTo(samples.seconds(i));
            assertThat(first.getYData()[i]).isEqualTo(samples.entriesPerSecond(i));
        }
        assertThat(chart.getSeriesMap().get("streamer-isolated/binary #3").getLineColor()).isEqualTo(LoadCharts.color(0));
        assertThat(chart.getSeriesMap().get("put/binary").getLineColor()).isEqualTo(LoadCharts.color(1));
        // The stall of put is drawn at 0 entries/s.
        assertThat(chart.getSeriesMap().get("put/binary").getYData()[1]).isZero();
    }

    @Test
    void aFileNamedPngIsAPngImageAndAnyOtherIsAnSvgDocumentWithTheHeader(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("run.png");
        LoadPlot.write(png, "sluice-load: 2,000,000 entries <per> mode & more", run());
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(LoadCharts.WIDTH);
        assertThat(image.getHeight()).isGreaterThan(LoadCharts.RATES_HEIGHT + LoadCharts.TIME_HEIGHT);

        Path svg = dir.resolve("run.svg");
        Files.writeString(svg, "old content that is longer than nothing, to be replaced");
        LoadPlot.write(svg, "sluice-load: 2,000,000 entries <per> mode & more", run());
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        org.w3c.dom.Document document = factory.newDocumentBuilder().parse(svg.toFile());
        assertThat(document.getDocumentElement().getLocalName()).isEqualTo("svg");
        // The header is text; XChart draws its own labels as outlines (paths).
        assertThat(document.getDocumentElement().getTextContent())
                .contains("sluice-load: 2,000,000 entries <per> mode & more");
        assertThat(document.getElementsByTagNameNS("http://www.w3.org/2000/svg", "path").getLength()).isGreaterThan(10);
    }

    @Test
    void aLongHeaderIsWrappedAtSpaces() {
        assertThat(LoadPlot.wrap("aaa bbb ccc dddddddd", 7)).containsExactly("aaa bbb", "ccc", "dddddddd");
    }

    private static List<Double> values(CategorySeries series) {
        List<Double> values = new ArrayList<>();
        for (Number n : series.getYData()) {
            values.add(n == null ? null : n.doubleValue());
        }
        return values;
    }
}
