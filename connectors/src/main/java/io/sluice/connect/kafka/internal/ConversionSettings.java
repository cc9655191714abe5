package io.sluice.connect.kafka.internal;

import java.util.List;
import java.util.Objects;

/**
 * What {@link RecordConverter} is told by the sink's config, in its own terms: the public config
 * ({@code SluiceSinkConfig}) parses the options and builds this, so the converter depends on no public
 * class of the connector (no package cycle). The names of the options the converter's errors cite are
 * declared here, once; the public config's constants refer to them.
 *
 * @param keySource       where a record's key comes from ({@value #KEY_MODE})
 * @param keyFields       the value fields forming the key, in order ({@value #KEY_FIELDS})
 * @param keyTypeFormat   binary type of composite keys, {@code ${topic}} replaced ({@value #KEY_TYPE_NAME})
 * @param valueTypeFormat binary type of values, {@code ${topic}} and {@code ${schema}} replaced
 *                        ({@value #VALUE_TYPE_NAME})
 * @param stringsAsJson   whether a String value is read as a JSON object ({@value #VALUE_STRING_FORMAT}{@code =JSON})
 *                        or stored as it is ({@code STRING})
 * @param bytesAsJson     whether a bytes value is read as a UTF-8 JSON object ({@value #VALUE_BYTES_FORMAT}{@code =JSON})
 *                        or stored as it is ({@code BYTES})
 * @param onNullValue     what a record with a null value does ({@value #NULL_VALUES})
 * @param onNullKey       what a record with a null key does ({@value #NULL_KEYS})
 */
public record ConversionSettings(KeySource keySource, List<String> keyFields, String keyTypeFormat,
                                 String valueTypeFormat, boolean stringsAsJson, boolean bytesAsJson,
                                 OnNullValue onNullValue, OnNullKey onNullKey) {

    public static final String KEY_MODE = "sluice.key.mode";
    public static final String KEY_FIELDS = "sluice.key.fields";
    public static final String KEY_TYPE_NAME = "sluice.key.type.name";
    public static final String VALUE_TYPE_NAME = "sluice.value.type.name";
    public static final String VALUE_STRING_FORMAT = "sluice.value.string.format";
    public static final String VALUE_BYTES_FORMAT = "sluice.value.bytes.format";
    public static final String NULL_VALUES = "behavior.on.null.values";
    public static final String NULL_KEYS = "behavior.on.null.keys";

    /** Where a record's key comes from (the public {@code KeyMode}). */
    public enum KeySource { RECORD_KEY, VALUE_FIELDS, TOPIC_PARTITION_OFFSET }

    /** What a record with a null value does (the public {@code NullValueBehavior}). */
    public enum OnNullValue { DELETE, IGNORE, FAIL }

    /** What a record with a null key does (the public {@code NullKeyBehavior}). */
    public enum OnNullKey { FAIL, IGNORE, TOPIC_PARTITION_OFFSET }

    public ConversionSettings {
        Objects.requireNonNull(keySource, "keySource");
        keyFields = List.copyOf(keyFields);
        Objects.requireNonNull(keyTypeFormat, "keyTypeFormat");
        Objects.requireNonNull(valueTypeFormat, "valueTypeFormat");
        Objects.requireNonNull(onNullValue, "onNullValue");
        Objects.requireNonNull(onNullKey, "onNullKey");
    }
}
