package io.sluice.samples.load;

import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import org.knowm.xchart.internal.chartpart.Chart;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code --plot} file: the run's header on top, then {@link LoadCharts#rates} and
 * {@link LoadCharts#overTime}, one under the other, as SVG (through XChart's VectorGraphics2D) or,
 * for a file named {@code .png}, as PNG.
 */
final class LoadPlot {

    private static final int MARGIN = 12;
    private static final int TITLE_LINE = 16;
    private static final int TITLE_CHARS = 130;
    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);

    private LoadPlot() {
    }

    /** Whether {@code file} is written as PNG (its name ends with {@code .png}); else it is SVG. */
    static boolean isPng(Path file) {
        return file.getFileName() != null && file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png");
    }

    /** Writes the run's charts to {@code file}, replacing it: PNG if it is named so, else SVG. */
    static void write(Path file, String title, List<ModeRuns> modes) throws IOException {
        List<String> titleLines = wrap(title, TITLE_CHARS);
        List<Chart<?, ?>> charts = List.of(LoadCharts.rates(modes), LoadCharts.overTime(modes));
        int width = LoadCharts.WIDTH;
        int height = MARGIN + titleLines.size() * TITLE_LINE + MARGIN;
        for (Chart<?, ?> chart : charts) {
            height += chart.getHeight();
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            if (isPng(file)) {
                BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
                Graphics2D g = image.createGraphics();
                g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
                g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
                paint(g, titleLines, charts, width, height);
                g.dispose();
                ImageIO.write(image, "png", out);
            } else {
                VectorGraphics2D g = new VectorGraphics2D();
                paint(g, titleLines, charts, width, height);
                new SVGProcessor().getDocument(g.getCommands(), new PageSize(0, 0, width, height)).writeTo(out);
            }
        }
    }

    private static void paint(Graphics2D g, List<String> titleLines, List<Chart<?, ?>> charts, int width, int height) {
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.DARK_GRAY);
        g.setFont(TITLE_FONT);
        for (int i = 0; i < titleLines.size(); i++) {
            g.drawString(titleLines.get(i), MARGIN, MARGIN + 10 + i * TITLE_LINE);
        }
        int y = MARGIN + titleLines.size() * TITLE_LINE + MARGIN;
        for (Chart<?, ?> chart : charts) {
            Graphics2D part = (Graphics2D) g.create(0, y, width, chart.getHeight());
            chart.paint(part, width, chart.getHeight());
            part.dispose();
            y += chart.getHeight();
        }
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
