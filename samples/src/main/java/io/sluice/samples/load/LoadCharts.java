package io.sluice.samples.load;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.util.ArrayList;
import java.util.List;

/**
 * The two charts of {@code --plot}, drawn by XChart; a mode has the same colour in both.
 * <ul>
 *   <li>{@link #rates}: one bar per mode at its median entries/s (the table's figure), and one
 *       dot per run on it, so the spread of the repeats shows; a mode that failed has no bar and
 *       its legend entry says so; a load that did not verify is marked in the legend.</li>
 *   <li>{@link #overTime}: one line per run of each mode, x = seconds since that run's timed
 *       load started, y = entries/s since the previous progress sample.</li>
 * </ul>
 */
final class LoadCharts {

    static final int WIDTH = 960;
    static final int RATES_HEIGHT = 420;
    /** Height of the time chart without its legend, which takes a row per mode. */
    static final int TIME_HEIGHT = 400;
    private static final int LEGEND_ROW = 24;

    /** Distinguishable colours (Tableau 10), cycled when a run has more modes. */
    private static final Color[] COLORS = {new Color(0x4e79a7), new Color(0xf28e2b), new Color(0x59a14f),
            new Color(0xe15759), new Color(0x76b7b2), new Color(0xedc948), new Color(0xb07aa1),
            new Color(0xff9da7), new Color(0x9c755f), new Color(0xbab0ac)};
    private static final Color RUN_DOT = new Color(0x222222);
    /** Lines with at most this many points also mark each point. */
    private static final int MARKED_POINTS = 12;

    private LoadCharts() {
    }

    /** Height of the time chart for this many modes. */
    static int timeHeight(int modes) {
        return TIME_HEIGHT + LEGEND_ROW * Math.max(1, modes);
    }

    /** The colour of the mode at {@code index} in run order. */
    static Color color(int index) {
        return COLORS[index % COLORS.length];
    }

    /** A mode's name in the legends: {@code mode/values}, and what went wrong if anything did. */
    static String legend(ModeRuns mode) {
        if (mode.finished().isEmpty()) {
            return mode.label() + " (failed: " + mode.shown().problem() + ")";
        }
        return mode.verified() ? mode.label() : mode.label() + " (not verified)";
    }

    /** Entries/s per mode: the median as a bar, every run as a dot. */
    static CategoryChart rates(List<ModeRuns> modes) {
        boolean repeated = modes.stream().anyMatch(m -> m.runs().size() > 1);
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(RATES_HEIGHT)
                .title(repeated ? "entries/s per mode: bar = median, dots = each run (taller is faster)"
                        : "entries/s per mode (taller is faster)")
                .yAxisTitle("entries/s").build();
        CategoryStyler styler = chart.getStyler();
        styler.setOverlapped(true);
        // Each bar labelled with its figure, as the table prints it.
        styler.setLabelsVisible(true);
        styler.setLabelsPosition(0.98);
        styler.setXAxisLabelRotation(15);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setYAxisMin(0.0);
        style(styler);
        List<String> labels = modes.stream().map(ModeRuns::label).toList();
        int mostRuns = 0;
        for (int i = 0; i < modes.size(); i++) {
            ModeRuns mode = modes.get(i);
            mostRuns = Math.max(mostRuns, mode.runs().size());
            List<Double> bar = new ArrayList<>();
            for (String label : labels) {
                // A failed mode's time means nothing: no bar (as the table shows '-').
                bar.add(label.equals(mode.label()) && !mode.finished().isEmpty() ? median(mode) : null);
            }
            CategorySeries series = chart.addSeries(legend(mode), labels, bar);
            series.setChartCategorySeriesRenderStyle(CategorySeriesRenderStyle.Bar);
            series.setFillColor(color(i));
            // The axis names the modes: the legend only says what went wrong, and what the dots are.
            series.setShowInLegend(!mode.verified());
        }
        if (mostRuns > 1) {
            for (int run = 0; run < mostRuns; run++) {
                List<Double> dots = new ArrayList<>();
                for (ModeRuns mode : modes) {
                    List<ModeResult> runs = mode.runs();
                    boolean timed = run < runs.size() && runs.get(run).actualSize() >= 0;
                    dots.add(timed ? runs.get(run).entriesPerSecond() : null);
                }
                CategorySeries series = chart.addSeries("run " + (run + 1), labels, dots);
                series.setChartCategorySeriesRenderStyle(CategorySeriesRenderStyle.Scatter);
                series.setMarker(SeriesMarkers.CIRCLE);
                series.setMarkerColor(RUN_DOT);
                series.setShowInLegend(run == 0);
            }
            chart.getSeriesMap().get("run 1").setLabel("each run");
        }
        styler.setLegendVisible(mostRuns > 1 || modes.stream().anyMatch(m -> !m.verified()));
        return chart;
    }

    /** What both charts share: white, legend below, entries/s with thousands separators, no tool tips. */
    private static void style(AxesChartStyler styler) {
        styler.setLegendPosition(LegendPosition.OutsideS);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setYAxisDecimalPattern("#,###");
        styler.setToolTipsEnabled(false);
    }

    /** The median entries/s a mode's bar shows: over the verified runs, else the run the table shows. */
    private static double median(ModeRuns mode) {
        return mode.verified() ? mode.entriesPerSecond().median() : mode.shown().entriesPerSecond();
    }

    /** Entries/s over time, one line per run of each mode. */
    static XYChart overTime(List<ModeRuns> modes) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(timeHeight(modes.size()))
                .title("entries/s over time, every run (each point: entries/s since the previous one, "
                        + ProgressReporter.SAMPLE_MILLIS + " ms before)")
                .xAxisTitle("seconds since the run's start").yAxisTitle("entries/s").build();
        XYStyler styler = chart.getStyler();
        styler.setDefaultSeriesRenderStyle(XYSeriesRenderStyle.Line);
        styler.setYAxisMin(0.0);
        styler.setXAxisMin(0.0);
        style(styler);
        boolean any = false;
        for (int i = 0; i < modes.size(); i++) {
            List<ModeResult> runs = modes.get(i).runs();
            for (int run = 0; run < runs.size(); run++) {
                ProgressTimeline samples = runs.get(run).progress();
                if (samples.size() == 0) {
                    continue;
                }
                double[] seconds = new double[samples.size()];
                double[] rates = new double[samples.size()];
                for (int s = 0; s < samples.size(); s++) {
                    seconds[s] = samples.seconds(s);
                    rates[s] = samples.entriesPerSecond(s);
                }
                String name = runs.size() == 1 ? modes.get(i).label() : modes.get(i).label() + " #" + (run + 1);
                XYSeries series = chart.addSeries(name, seconds, rates);
                series.setLineColor(color(i));
                series.setMarkerColor(color(i));
                series.setMarker(samples.size() <= MARKED_POINTS ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
                // One legend entry per mode: its runs share its colour.
                series.setShowInLegend(run == 0);
                if (runs.size() > 1) {
                    series.setLabel(modes.get(i).label() + " (" + runs.size() + " runs)");
                }
                any = true;
            }
        }
        if (!any) {
            // XChart draws no axes without a series: one empty point, named for what it says.
            XYSeries none = chart.addSeries("no progress samples were recorded", new double[]{0}, new double[]{0});
            none.setMarker(SeriesMarkers.NONE);
            none.setLineColor(Color.GRAY);
        }
        return chart;
    }
}
