package io.sluice.connect.kafka.internal;

import org.apache.kafka.common.config.ConfigDef;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration reference of {@code docs/kafka-connect.md}, generated from the sink's
 * {@link ConfigDef} ({@code SluiceSinkConfig.CONFIG_DEF}, given by the caller): one table per group, in
 * declaration order. A test keeps the
 * page equal to it ({@code -Dsluice.docs.write=true} rewrites the page).
 */
public final class ConfigDocs {

    /** Marks the start of the generated part of the page. */
    public static final String BEGIN = "<!-- config reference: generated from SluiceSinkConfig.CONFIG_DEF -->";
    /** Marks its end. */
    public static final String END = "<!-- end of the generated config reference -->";

    private ConfigDocs() {
    }

    /** The reference of these options as Markdown, between {@link #BEGIN} and {@link #END}. */
    public static String markdown(ConfigDef options) {
        Map<String, List<ConfigDef.ConfigKey>> groups = new LinkedHashMap<>();
        for (ConfigDef.ConfigKey key : options.configKeys().values()) {
            groups.computeIfAbsent(key.group, g -> new ArrayList<>()).add(key);
        }
        StringBuilder s = new StringBuilder(BEGIN).append("\n");
        for (Map.Entry<String, List<ConfigDef.ConfigKey>> g : groups.entrySet()) {
            s.append("\n### ").append(g.getKey()).append("\n\n");
            s.append("| key | type | default | valid values | importance | description |\n");
            s.append("|---|---|---|---|---|---|\n");
            List<ConfigDef.ConfigKey> keys = new ArrayList<>(g.getValue());
            keys.sort((a, b) -> Integer.compare(a.orderInGroup, b.orderInGroup));
            for (ConfigDef.ConfigKey k : keys) {
                s.append("| `").append(k.name).append("` | ").append(k.type.name().toLowerCase())
                        .append(" | ").append(defaultOf(k))
                        .append(" | ").append(k.validator == null ? "" : cell(k.validator.toString()))
                        .append(" | ").append(k.importance.name().toLowerCase())
                        .append(" | ").append(cell(k.documentation)).append(" |\n");
            }
        }
        return s.append("\n").append(END).toString();
    }

    private static String defaultOf(ConfigDef.ConfigKey k) {
        if (!k.hasDefault()) {
            return "(required)";
        }
        if (k.defaultValue == null) {
            return "(none)";
        }
        String v = ConfigDef.convertToString(k.defaultValue, k.type);
        return v.isEmpty() ? "\"\"" : "`" + v + "`";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
