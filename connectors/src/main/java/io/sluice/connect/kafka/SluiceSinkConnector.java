package io.sluice.connect.kafka;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The Sluice sink connector: streams topic records into Sluice caches through the remote client
 * (no node runs inside the worker). Every task gets the whole config; options are in
 * {@link SluiceSinkConfig}, delivery guarantees in {@link SluiceSinkTask}.
 */
public class SluiceSinkConnector extends SinkConnector {

    /** The connector's version (the Maven project's). */
    public static final String VERSION = readVersion();

    private Map<String, String> props;

    @Override
    public String version() {
        return VERSION;
    }

    /** @throws ConfigException naming the key whose value is missing or wrong */
    @Override
    public void start(Map<String, String> props) {
        new SluiceSinkConfig(props);
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return SluiceSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            configs.add(props);
        }
        return configs;
    }

    @Override
    public void stop() {
        props = null;
    }

    @Override
    public ConfigDef config() {
        return SluiceSinkConfig.CONFIG_DEF;
    }

    /** Checks each key, then the keys that depend on each other; an error is attached to the key it names. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        boolean singleErrors = config.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty());
        if (!singleErrors) {
            try {
                new SluiceSinkConfig(connectorConfigs);
            } catch (ConfigException e) {
                ConfigValue target = null;
                for (ConfigValue v : config.configValues()) {
                    if (e.getMessage() != null && e.getMessage().contains("configuration " + v.name() + ":")) {
                        target = v;
                    }
                }
                if (target == null) {
                    target = new ConfigValue(SluiceSinkConfig.ERRORS_TOLERANCE);
                    config.configValues().add(target);
                }
                target.addErrorMessage(e.getMessage());
            }
        }
        return config;
    }

    private static String readVersion() {
        try (InputStream in = SluiceSinkConnector.class.getResourceAsStream("sluice-connect.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
