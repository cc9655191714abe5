package io.sluice.samples.load;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Writes an SVG document element by element, escaping every text and attribute value, so that
 * whatever a label holds the document is well-formed XML 1.0. Elements are closed in the order
 * they were opened; {@link #finish()} closes the ones left open.
 *
 * <p>Attributes are given as name-value pairs: {@code svg.empty("rect", "x", "10", "width", "5")}.
 */
final class Svg {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.:-]*");

    private final StringBuilder out = new StringBuilder(4096);
    private final Deque<String> open = new ArrayDeque<>();
    private boolean finished;

    /** Starts a document of {@code width} by {@code height} pixels. */
    Svg(double width, double height) {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", number(width), "height", number(height),
                "viewBox", "0 0 " + number(width) + " " + number(height));
    }

    /** Opens an element; {@link #close()} ends it. */
    Svg open(String name, String... attributes) {
        start(name, attributes);
        out.append(">\n");
        open.push(name);
        return this;
    }

    /** Ends the element opened last. */
    Svg close() {
        if (open.size() <= 1) {
            throw new IllegalStateException("no element is open below <svg>");
        }
        end(open.pop());
        return this;
    }

    /** An element without content. */
    Svg empty(String name, String... attributes) {
        start(name, attributes);
        out.append("/>\n");
        return this;
    }

    /** An element holding text, e.g. {@code <text>} or {@code <title>}. */
    Svg text(String name, String content, String... attributes) {
        start(name, attributes);
        out.append('>');
        escape(content, out);
        out.append("</").append(name).append(">\n");
        return this;
    }

    /** The document, every element closed; the writer takes no more elements. */
    String finish() {
        if (!finished) {
            while (!open.isEmpty()) {
                end(open.pop());
            }
            finished = true;
        }
        return out.toString();
    }

    private void start(String name, String[] attributes) {
        if (finished) {
            throw new IllegalStateException("the document is finished");
        }
        if (attributes.length % 2 != 0) {
            throw new IllegalArgumentException("attributes of <" + name + "> are not name-value pairs: "
                    + attributes.length + " strings");
        }
        out.append("  ".repeat(open.size())).append('<').append(checkName(name));
        for (int i = 0; i < attributes.length; i += 2) {
            out.append(' ').append(checkName(attributes[i])).append("=\"");
            escape(attributes[i + 1], out);
            out.append('"');
        }
    }

    private void end(String name) {
        out.append("  ".repeat(open.size())).append("</").append(name).append(">\n");
    }

    private static String checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + name + "' is not an XML name");
        }
        return name;
    }

    /** {@code text} escaped for an XML attribute value or element content. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        escape(text, escaped);
        return escaped.toString();
    }

    /**
     * Escapes the five XML special characters; characters XML 1.0 does not allow at all (control
     * characters other than tab, line feed and carriage return; unpaired surrogates; U+FFFE and
     * U+FFFF) become U+FFFD, the replacement character.
     */
    private static void escape(String text, StringBuilder to) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> to.append("&amp;");
                case '<' -> to.append("&lt;");
                case '>' -> to.append("&gt;");
                case '"' -> to.append("&quot;");
                case '\'' -> to.append("&apos;");
                // Kept as characters, a line feed or tab in an attribute would be read back as a space.
                case '\t', '\n', '\r' -> to.append("&#").append((int) c).append(';');
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < text.length()
                            && Character.isLowSurrogate(text.charAt(i + 1))) {
                        to.append(c).append(text.charAt(++i));
                    } else if (c < 0x20 || Character.isSurrogate(c) || c == 0xFFFE || c == 0xFFFF) {
                        to.append('\uFFFD');
                    } else {
                        to.append(c);
                    }
                }
            }
        }
    }

    /** A coordinate: at most one decimal, no trailing {@code .0}, a dot whatever the locale. */
    static String number(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("coordinate " + value + " is not finite");
        }
        String text = String.format(Locale.ROOT, "%.1f", value);
        if (text.endsWith(".0")) {
            text = text.substring(0, text.length() - 2);
        }
        return text.equals("-0") ? "0" : text;
    }
}
