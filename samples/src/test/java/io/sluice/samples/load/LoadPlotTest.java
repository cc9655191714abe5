package io.sluice.samples.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

    private static List<ModeResult> run() {
        return List.of(
                // 2,000,000 in 1.6 s; a slow start, then steady.
                result("streamer-isolated", 2_000_000, 1.6, new long[][]{
                        {400, 10_000}, {800, 700_000}, {1200, 1_400_000}, {1600, 2_000_000}}),
                // 300,000 in 0.9 s, with a stall from 0.3 s to 0.6 s.
                result("put", 300_000, 0.9, new long[][]{{300, 150_000}, {600, 150_000}, {900, 300_000}}),
                ModeResult.failed("putAll", "binary", 300_000, 0.2, 300_000, new IllegalStateException("boom")));
    }

    @Test
    void theDocumentIsWellFormedSvg() throws Exception {
        Document svg = SvgTest.parse(LoadPlot.svg("sluice-load: 2,000,000 entries <per> mode & more", run()));
        assertThat(svg.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(svg.getDocumentElement().getTextContent()).contains("sluice-load: 2,000,000 entries <per> mode & more");
    }

    @Test
    void eachBarIsLabelledWithItsModesFigureAsTheTablePrintsIt() throws Exception {
        Document svg = SvgTest.parse(LoadPlot.svg("t", run()));
        Map<String, Element> bars = byMode(svg.getElementsByTagName("g"), "bar");
        assertThat(bars).containsOnlyKeys("streamer-isolated/binary", "put/binary", "putAll/binary");
        assertThat(figure(bars.get("streamer-isolated/binary"))).isEqualTo("1,250,000");
        assertThat(figure(bars.get("put/binary"))).isEqualTo("333,333");
        // The faster mode has the longer bar, in proportion.
        double isolated = width(bars.get("streamer-isolated/binary"));
        double put = width(bars.get("put/binary"));
        assertThat(put / isolated).isCloseTo(333_333.0 / 1_250_000, within(0.01));
        // A failed mode has no bar and no figure: it says why.
        Element failed = bars.get("putAll/binary");
        assertThat(failed.getElementsByTagName("rect").getLength()).isZero();
        assertThat(figure(failed)).isNull();
        assertThat(failed.getTextContent()).contains("failed: IllegalStateException: boom");
    }

    @Test
    void aLoadThatDidNotVerifyKeepsItsBarAndIsMarked() throws Exception {
        ModeResult lost = new ModeResult("put", "pojo", 5000, 0.5, 500_000, 5000, 4960, 1000, 0, "LOST 40 entries");
        Document svg = SvgTest.parse(LoadPlot.svg("t", List.of(lost)));
        Element bar = byMode(svg.getElementsByTagName("g"), "bar").get("put/pojo");
        assertThat(figure(bar)).isEqualTo("10,000");
        assertThat(bar.getTextContent()).contains("not verified");
    }

    @Test
    void eachModesLineHasOnePointPerProgressSampleAtItsTimeAndRate() throws Exception {
        List<ModeResult> results = run();
        Document svg = SvgTest.parse(LoadPlot.svg("t", results));
        Element area = (Element) svg.getElementsByTagName("rect").item(0);
        NodeList rects = svg.getElementsByTagName("rect");
        for (int i = 0; i < rects.getLength(); i++) {
            if (((Element) rects.item(i)).getAttribute("class").equals("plot-area")) {
                area = (Element) rects.item(i);
            }
        }
        double x0 = Double.parseDouble(area.getAttribute("x"));
        double y0 = Double.parseDouble(area.getAttribute("y"));
        double width = Double.parseDouble(area.getAttribute("width"));
        double height = Double.parseDouble(area.getAttribute("height"));
        double xMax = Double.parseDouble(area.getAttribute("data-x-max"));
        double yMax = Double.parseDouble(area.getAttribute("data-y-max"));
        assertThat(xMax).isGreaterThanOrEqualTo(1.6);
        // The fastest interval: 700,000 entries in 0.4 s.
        assertThat(yMax).isGreaterThanOrEqualTo(1_750_000);

        Map<String, Element> lines = byMode(svg.getElementsByTagName("polyline"), "series");
        // The failed mode recorded no samples and draws no line.
        assertThat(lines).containsOnlyKeys("streamer-isolated/binary", "put/binary");
        for (ModeResult r : results.subList(0, 2)) {
            ProgressTimeline samples = r.progress();
            String[] points = lines.get(PlotStyle.label(r)).getAttribute("points").split(" ");
            assertThat(points).as(r.mode()).hasSize(samples.size());
            for (int i = 0; i < points.length; i++) {
                String[] xy = points[i].split(",");
                double seconds = (Double.parseDouble(xy[0]) - x0) / width * xMax;
                double rate = (y0 + height - Double.parseDouble(xy[1])) / height * yMax;
                // Coordinates have one decimal: a twentieth of a pixel off at most.
                assertThat(seconds).as("%s point %d", r.mode(), i).isCloseTo(samples.seconds(i), within(0.06 / width * xMax));
                assertThat(rate).as("%s point %d", r.mode(), i)
                        .isCloseTo(samples.entriesPerSecond(i), within(0.06 / height * yMax));
            }
        }
        // The stall of put is drawn at 0 entries/s, on the plot's bottom edge.
        String stall = lines.get("put/binary").getAttribute("points").split(" ")[1];
        assertThat(Double.parseDouble(stall.split(",")[1])).isCloseTo(y0 + height, within(0.05));
    }

    @Test
    void writeReplacesTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("run.svg");
        Files.writeString(file, "old content that is longer than nothing");
        LoadPlot.write(file, "t", run());
        assertThat(SvgTest.parse(Files.readString(file)).getDocumentElement().getLocalName()).isEqualTo("svg");
    }

    /** The elements of one class by their {@code data-mode}. */
    static Map<String, Element> byMode(NodeList elements, String cssClass) {
        Map<String, Element> byMode = new LinkedHashMap<>();
        for (int i = 0; i < elements.getLength(); i++) {
            Element element = (Element) elements.item(i);
            if (element.getAttribute("class").equals(cssClass)) {
                byMode.put(element.getAttribute("data-mode"), element);
            }
        }
        return byMode;
    }

    /** The text of a bar's {@code bar-value}, or null if it has none. */
    static String figure(Element bar) {
        List<String> figures = new ArrayList<>();
        NodeList texts = bar.getElementsByTagName("text");
        for (int i = 0; i < texts.getLength(); i++) {
            Element text = (Element) texts.item(i);
            if (text.getAttribute("class").equals("bar-value")) {
                figures.add(text.getTextContent());
            }
        }
        assertThat(figures).hasSizeLessThanOrEqualTo(1);
        return figures.isEmpty() ? null : figures.get(0);
    }

    private static double width(Element bar) {
        return Double.parseDouble(((Element) bar.getElementsByTagName("rect").item(0)).getAttribute("width"));
    }
}
