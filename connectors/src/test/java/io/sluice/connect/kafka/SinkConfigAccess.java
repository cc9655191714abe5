package io.sluice.connect.kafka;

import io.sluice.connect.kafka.internal.ConversionSettings;

import java.util.Map;

/** For tests of the connector's internals: what {@link SluiceSinkConfig} hands them, package-private there. */
public final class SinkConfigAccess {

    private SinkConfigAccess() {
    }

    /** The record converter's settings as the sink makes them from these options. */
    public static ConversionSettings conversionSettings(Map<String, String> props) {
        return new SluiceSinkConfig(props).conversionSettings();
    }
}
