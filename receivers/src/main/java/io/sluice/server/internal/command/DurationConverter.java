package io.sluice.server.internal.command;

import picocli.CommandLine;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A duration on the command line: a number and a unit, {@code 500ms}, {@code 60s}, {@code 5m}, {@code 1h}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern DURATION = Pattern.compile("([0-9]{1,9})\\s*(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** @throws CommandLine.TypeConversionException saying what a duration looks like */
    static Duration parse(String value) {
        Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration: a number and a unit,"
                    + " ms, s, m or h (60s, 500ms, 5m)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
