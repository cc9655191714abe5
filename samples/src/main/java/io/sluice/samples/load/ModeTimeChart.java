package io.sluice.samples.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.sluice.samples.load.PlotStyle.FONT;
import static io.sluice.samples.load.PlotStyle.FONT_SIZE;
import static io.sluice.samples.load.Svg.number;

/**
 * Entries/s over time, one line per mode from its progress samples: x = seconds since the mode's
 * start, y = entries/s over the interval that ends at the sample. A stall shows as a drop to 0,
 * a slow start as a rising first stretch. Each line is a {@code <polyline class="series"
 * data-mode="mode/values">} with one point per sample; the plot area is a {@code <rect
 * class="plot-area">} whose {@code data-x-max} and {@code data-y-max} are the axes' ends.
 */
final class ModeTimeChart {

    private static final double HEADING = 24;
    private static final double PLOT_HEIGHT = 280;
    private static final double LEFT = 60;
    private static final double RIGHT = 20;
    /** Tick labels and the axis caption below the plot. */
    private static final double BELOW_PLOT = 40;
    private static final double LEGEND_ROW = 20;
    private static final double SWATCH = 18;
    /** Lines with at most this many points also mark each point. */
    private static final int MARKED_POINTS = 12;

    private ModeTimeChart() {
    }

    /** Height the chart takes for these results at this width. */
    static double height(List<ModeResult> results, double width) {
        return HEADING + PLOT_HEIGHT + BELOW_PLOT + legendRows(results, width).size() * LEGEND_ROW + 8;
    }

    /** Draws the chart with its top left corner at (x, y), {@code width} wide. */
    static void draw(Svg svg, List<ModeResult> results, double x, double y, double width) {
        double longest = 0;
        double fastest = 0;
        for (ModeResult r : results) {
            ProgressTimeline samples = r.progress();
            for (int i = 0; i < samples.size(); i++) {
                longest = Math.max(longest, samples.seconds(i));
                fastest = Math.max(fastest, samples.entriesPerSecond(i));
            }
        }
        AxisScale xScale = AxisScale.upTo(longest, 10);
        AxisScale yScale = AxisScale.upTo(fastest, 6);
        double plotX = x + LEFT;
        double plotY = y + HEADING;
        double plotWidth = width - LEFT - RIGHT;
        double plotBottom = plotY + PLOT_HEIGHT;

        svg.open("g", "class", "time-chart", "style", FONT + ";font-size:" + FONT_SIZE + "px",
                "fill", PlotStyle.TEXT_COLOR);
        svg.text("text", "entries/s over time per mode (progress sampled every " + ProgressReporter.SAMPLE_MILLIS
                        + " ms; each point: entries/s since the previous point)",
                "class", "heading", "x", number(x), "y", number(y + 15),
                "style", "font-size:" + (FONT_SIZE + 2) + "px;font-weight:bold");
        svg.empty("rect", "class", "plot-area", "x", number(plotX), "y", number(plotY), "width", number(plotWidth),
                "height", number(PLOT_HEIGHT), "fill", "none", "stroke", PlotStyle.AXIS_COLOR,
                "data-x-max", Double.toString(xScale.max()), "data-y-max", Double.toString(yScale.max()));
        for (double tick : yScale.ticks()) {
            double tickY = plotBottom - yScale.fraction(tick) * PLOT_HEIGHT;
            if (tick > 0 && tick < yScale.max()) {
                svg.empty("line", "x1", number(plotX), "y1", number(tickY), "x2", number(plotX + plotWidth),
                        "y2", number(tickY), "stroke", PlotStyle.GRID_COLOR);
            }
            svg.text("text", yScale.label(tick), "class", "tick", "x", number(plotX - 6), "y", number(tickY + 4),
                    "text-anchor", "end", "fill", PlotStyle.AXIS_COLOR);
        }
        for (double tick : xScale.ticks()) {
            double tickX = plotX + xScale.fraction(tick) * plotWidth;
            if (tick > 0 && tick < xScale.max()) {
                svg.empty("line", "x1", number(tickX), "y1", number(plotY), "x2", number(tickX),
                        "y2", number(plotBottom), "stroke", PlotStyle.GRID_COLOR);
            }
            svg.text("text", xScale.label(tick), "class", "tick", "x", number(tickX), "y", number(plotBottom + 16),
                    "text-anchor", "middle", "fill", PlotStyle.AXIS_COLOR);
        }
        svg.text("text", "seconds since the mode's start", "class", "axis-caption",
                "x", number(plotX + plotWidth / 2), "y", number(plotBottom + 34), "text-anchor", "middle");
        boolean anySamples = false;
        for (int i = 0; i < results.size(); i++) {
            ProgressTimeline samples = results.get(i).progress();
            if (samples.size() > 0) {
                anySamples = true;
                drawLine(svg, PlotStyle.label(results.get(i)), samples, i, plotX, plotBottom, plotWidth, xScale,
                        yScale);
            }
        }
        if (!anySamples) {
            svg.text("text", "no progress samples were recorded", "x", number(plotX + plotWidth / 2),
                    "y", number(plotY + PLOT_HEIGHT / 2), "text-anchor", "middle", "fill", PlotStyle.AXIS_COLOR);
        }
        drawLegend(svg, results, x, plotBottom + BELOW_PLOT, width);
        svg.close();
    }

    private static void drawLine(Svg svg, String label, ProgressTimeline samples, int index, double plotX,
                                 double plotBottom, double plotWidth, AxisScale xScale, AxisScale yScale) {
        StringBuilder points = new StringBuilder(samples.size() * 12);
        double[] xs = new double[samples.size()];
        double[] ys = new double[samples.size()];
        for (int i = 0; i < samples.size(); i++) {
            xs[i] = plotX + xScale.fraction(samples.seconds(i)) * plotWidth;
            ys[i] = plotBottom - yScale.fraction(samples.entriesPerSecond(i)) * PLOT_HEIGHT;
            if (i > 0) {
                points.append(' ');
            }
            points.append(number(xs[i])).append(',').append(number(ys[i]));
        }
        svg.open("g", "class", "series-group", "data-mode", label);
        String color = PlotStyle.color(index);
        svg.open("polyline", "class", "series", "data-mode", label, "points", points.toString(), "fill", "none",
                "stroke", color, "stroke-width", "2", "stroke-linejoin", "round", "stroke-dasharray", dashes(index));
        svg.text("title", String.format(Locale.ROOT, "%s: %d samples", label, samples.size()));
        svg.close();
        if (samples.size() <= MARKED_POINTS) {
            for (int i = 0; i < samples.size(); i++) {
                svg.empty("circle", "cx", number(xs[i]), "cy", number(ys[i]), "r", "3", "fill", color);
            }
        }
        svg.close();
    }

    private static void drawLegend(Svg svg, List<ModeResult> results, double x, double y, double width) {
        List<List<Integer>> rows = legendRows(results, width);
        for (int row = 0; row < rows.size(); row++) {
            double itemX = x + LEFT;
            double itemY = y + row * LEGEND_ROW;
            for (int index : rows.get(row)) {
                String text = legendText(results.get(index));
                svg.empty("line", "x1", number(itemX), "y1", number(itemY + 7), "x2", number(itemX + SWATCH),
                        "y2", number(itemY + 7), "stroke", PlotStyle.color(index), "stroke-width", "4",
                        "stroke-dasharray", dashes(index));
                svg.text("text", text, "class", "legend", "x", number(itemX + SWATCH + 5), "y", number(itemY + 11));
                itemX += legendItemWidth(text);
            }
        }
    }

    /** The line's dashes; {@code none} for a solid line. */
    private static String dashes(int index) {
        String dashes = PlotStyle.dashes(index);
        return dashes == null ? "none" : dashes;
    }

    private static String legendText(ModeResult r) {
        return r.progress().size() > 0 ? PlotStyle.label(r) : PlotStyle.label(r) + " (no samples)";
    }

    private static double legendItemWidth(String text) {
        return SWATCH + 5 + PlotStyle.textWidth(text, FONT_SIZE) + 18;
    }

    /** The results' indexes, row by row, as many per row as fit the width. */
    private static List<List<Integer>> legendRows(List<ModeResult> results, double width) {
        List<List<Integer>> rows = new ArrayList<>();
        List<Integer> row = new ArrayList<>();
        double used = 0;
        double room = width - LEFT - RIGHT;
        for (int i = 0; i < results.size(); i++) {
            double item = legendItemWidth(legendText(results.get(i)));
            if (!row.isEmpty() && used + item > room) {
                rows.add(row);
                row = new ArrayList<>();
                used = 0;
            }
            row.add(i);
            used += item;
        }
        if (!row.isEmpty()) {
            rows.add(row);
        }
        return rows;
    }
}
