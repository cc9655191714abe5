package io.sluice.samples.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What the charts of {@code --plot} share: fonts, colours (one per mode, the same in every chart), labels. */
final class PlotStyle {

    static final String FONT = "font-family:sans-serif";
    static final int FONT_SIZE = 12;
    static final String TEXT_COLOR = "#222222";
    static final String GRID_COLOR = "#dddddd";
    static final String AXIS_COLOR = "#888888";
    static final String PROBLEM_COLOR = "#c0392b";

    /** Distinguishable colours (Tableau 10), cycled when a run has more modes. */
    private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
            "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

    private PlotStyle() {
    }

    /** The colour of the result at {@code index} in run order. */
    static String color(int index) {
        return COLORS[index % COLORS.length];
    }

    /**
     * The dashes of the result's line at {@code index}: solid for the first colours' round, then
     * dashed, so that two modes sharing a colour still differ; {@code null} for solid.
     */
    static String dashes(int index) {
        int round = index / COLORS.length;
        return round == 0 ? null : round == 1 ? "7,4" : "2,3";
    }

    /** How opaque the result's bar at {@code index} is: lighter from the second colours' round on. */
    static String barOpacity(int index) {
        return index < COLORS.length ? "1" : "0.55";
    }

    /** A result's name in the charts, as in the progress lines: {@code mode/values}. */
    static String label(ModeResult result) {
        return result.mode() + '/' + result.values();
    }

    /** A figure of entries/s as the result table prints it, e.g. {@code 1,234,568}. */
    static String rate(double entriesPerSecond) {
        return String.format(Locale.ROOT, "%,.0f", entriesPerSecond);
    }

    /** About how wide {@code text} is drawn at {@code fontSize} in a sans-serif font (generous, to leave room). */
    static double textWidth(String text, double fontSize) {
        return text.length() * fontSize * 0.6;
    }

    /** {@code text} broken at spaces into lines of at most {@code maxChars} (a longer word keeps its own line). */
    static List<String> wrap(String text, int maxChars) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > maxChars) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
