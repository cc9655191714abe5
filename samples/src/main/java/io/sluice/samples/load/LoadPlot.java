package io.sluice.samples.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.sluice.samples.load.PlotStyle.FONT;
import static io.sluice.samples.load.Svg.number;

/**
 * The {@code --plot} file: one SVG document with the run's header on top, then entries/s per mode
 * ({@link ModeBarChart}), then entries/s over time per mode ({@link ModeTimeChart}). A mode has
 * the same colour in both charts.
 */
final class LoadPlot {

    static final double WIDTH = 960;
    private static final double MARGIN = 20;
    private static final double TITLE_LINE = 16;
    private static final double GAP = 24;
    private static final int TITLE_CHARS = 140;

    private LoadPlot() {
    }

    /** The document for a run. */
    static String svg(String title, List<ModeResult> results) {
        List<String> titleLines = PlotStyle.wrap(title, TITLE_CHARS);
        double inner = WIDTH - 2 * MARGIN;
        double barsY = MARGIN + titleLines.size() * TITLE_LINE + GAP / 2;
        double timeY = barsY + ModeBarChart.height(results) + GAP;
        double height = timeY + ModeTimeChart.height(results, inner) + MARGIN;
        Svg svg = new Svg(WIDTH, height);
        svg.empty("rect", "width", "100%", "height", "100%", "fill", "#ffffff");
        svg.open("g", "class", "title", "style", FONT + ";font-size:12px", "fill", PlotStyle.TEXT_COLOR);
        for (int i = 0; i < titleLines.size(); i++) {
            svg.text("text", titleLines.get(i), "x", number(MARGIN), "y", number(MARGIN + 10 + i * TITLE_LINE));
        }
        svg.close();
        ModeBarChart.draw(svg, results, MARGIN, barsY, inner);
        ModeTimeChart.draw(svg, results, MARGIN, timeY, inner);
        return svg.finish();
    }

    /** Writes the document for a run to {@code file}, replacing it. */
    static void write(Path file, String title, List<ModeResult> results) throws IOException {
        Files.writeString(file, svg(title, results), StandardCharsets.UTF_8);
    }
}
