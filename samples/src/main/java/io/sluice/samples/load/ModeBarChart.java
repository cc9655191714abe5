package io.sluice.samples.load;

import java.util.List;

import static io.sluice.samples.load.PlotStyle.FONT;
import static io.sluice.samples.load.PlotStyle.FONT_SIZE;
import static io.sluice.samples.load.Svg.number;

/**
 * Entries/s per mode side by side: one horizontal bar per result, in run order, labelled with its
 * figure exactly as the result table prints it. A mode that failed before it finished has no bar
 * (its time means nothing) and says so; a load that finished but did not verify keeps its bar and
 * is marked. Each bar is a {@code <g class="bar" data-mode="mode/values">} holding the bar's
 * {@code rect}, the mode's name and a {@code <text class="bar-value">} with the figure.
 */
final class ModeBarChart {

    private static final double HEADING = 22;
    private static final double TICK_LABELS = 22;
    private static final double ROW = 26;
    private static final double BAR = 16;
    private static final double BOTTOM = 12;
    /** Room right of the longest bar for its figure and a note. */
    private static final double VALUE_ROOM = 190;
    /** Characters of a failure shown next to its mode (the whole reason is under the result table). */
    private static final int MAX_NOTE = 100;

    private ModeBarChart() {
    }

    /** Height the chart takes for these results. */
    static double height(List<ModeResult> results) {
        return HEADING + TICK_LABELS + Math.max(1, results.size()) * ROW + BOTTOM;
    }

    /** Draws the chart with its top left corner at (x, y), {@code width} wide. */
    static void draw(Svg svg, List<ModeResult> results, double x, double y, double width) {
        double labelWidth = 0;
        double largest = 0;
        for (ModeResult r : results) {
            labelWidth = Math.max(labelWidth, PlotStyle.textWidth(PlotStyle.label(r), FONT_SIZE));
            if (finished(r)) {
                largest = Math.max(largest, r.entriesPerSecond());
            }
        }
        labelWidth += 10;
        double plotX = x + labelWidth;
        double plotWidth = Math.max(100, width - labelWidth - VALUE_ROOM);
        AxisScale scale = AxisScale.upTo(largest, 6);
        double top = y + HEADING + TICK_LABELS;
        double bottom = top + Math.max(1, results.size()) * ROW;

        svg.open("g", "class", "bar-chart", "style", FONT + ";font-size:" + FONT_SIZE + "px",
                "fill", PlotStyle.TEXT_COLOR);
        svg.text("text", "entries/s per mode (longer is faster)", "class", "heading", "x", number(x),
                "y", number(y + 15), "style", "font-size:" + (FONT_SIZE + 2) + "px;font-weight:bold");
        for (double tick : scale.ticks()) {
            double tickX = plotX + scale.fraction(tick) * plotWidth;
            svg.empty("line", "x1", number(tickX), "y1", number(top - 4), "x2", number(tickX), "y2", number(bottom),
                    "stroke", PlotStyle.GRID_COLOR);
            svg.text("text", scale.label(tick), "class", "tick", "x", number(tickX), "y", number(top - 8),
                    "text-anchor", "middle", "fill", PlotStyle.AXIS_COLOR);
        }
        for (int i = 0; i < results.size(); i++) {
            drawRow(svg, results.get(i), i, plotX, top + i * ROW + (ROW - BAR) / 2, plotWidth, scale);
        }
        svg.empty("line", "x1", number(plotX), "y1", number(top - 4), "x2", number(plotX), "y2", number(bottom),
                "stroke", PlotStyle.AXIS_COLOR);
        svg.close();
    }

    private static void drawRow(Svg svg, ModeResult r, int index, double plotX, double barY, double plotWidth,
                                AxisScale scale) {
        String label = PlotStyle.label(r);
        double textY = barY + BAR - 4;
        svg.open("g", "class", "bar", "data-mode", label);
        svg.text("text", label, "class", "bar-label", "x", number(plotX - 8), "y", number(textY),
                "text-anchor", "end");
        if (!finished(r)) {
            String problem = "failed: " + r.problem();
            if (problem.length() > MAX_NOTE) {
                problem = problem.substring(0, MAX_NOTE - 3) + "...";
            }
            svg.text("text", problem, "class", "bar-note", "x", number(plotX + 6),
                    "y", number(textY), "fill", PlotStyle.PROBLEM_COLOR);
            svg.close();
            return;
        }
        String figure = PlotStyle.rate(r.entriesPerSecond());
        double barWidth = scale.fraction(r.entriesPerSecond()) * plotWidth;
        svg.open("rect", "x", number(plotX), "y", number(barY), "width", number(barWidth), "height", number(BAR),
                "fill", PlotStyle.color(index), "fill-opacity", PlotStyle.barOpacity(index));
        svg.text("title", String.format(java.util.Locale.ROOT, "%s: %s entries/s (%,d entries in %.2f s)",
                label, figure, r.entries(), r.seconds()));
        svg.close();
        double valueX = plotX + barWidth + 6;
        svg.text("text", figure, "class", "bar-value", "x", number(valueX), "y", number(textY));
        if (!r.verified()) {
            svg.text("text", "not verified", "class", "bar-note",
                    "x", number(valueX + PlotStyle.textWidth(figure, FONT_SIZE) + 6), "y", number(textY),
                    "fill", PlotStyle.PROBLEM_COLOR);
        }
        svg.close();
    }

    /** Whether the load ran to its end, so that its time is a figure (as in the result table). */
    private static boolean finished(ModeResult r) {
        return r.actualSize() >= 0;
    }
}
