package io.sluice.connect.kafka.internal;

import io.sluice.binary.Binary;
import io.sluice.connect.kafka.internal.ConversionSettings.KeySource;
import io.sluice.connect.kafka.internal.ConversionSettings.OnNullKey;
import io.sluice.connect.kafka.internal.ConversionSettings.OnNullValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link SinkRecord} into what the streamer is given: a key and a value, a removal, or
 * nothing (a skipped record), as the config's {@link ConversionSettings} say.
 *
 * <p>One rule for values: a value becomes a binary object, or the record is errant. A {@link Struct}
 * or schemaless {@link Map} becomes one (through {@link BinaryValues}), and so does a JSON object
 * given as text ({@code sluice.value.string.format=JSON}) or bytes ({@code sluice.value.bytes.format=JSON});
 * the only values stored as they are are text and bytes the config asks to keep
 * ({@code STRING}, {@code BYTES}: the sink does not look inside them). Anything else (an array, a
 * number, a boolean, a date, JSON text or bytes that is not one object) throws
 * {@link ConversionException} naming what the value is, so it goes to the dead letter queue or
 * fails the task as {@code errors.tolerance} says. Not thread-safe: one per task.
 */
public final class RecordConverter {

    /** What to do with one record. */
    public enum Action { PUT, REMOVE, SKIP }

    /** The result of {@link #convert}; reused between calls. */
    public static final class Converted {
        public Action action;
        public Object key;
        public Object value;
    }

    private final KeySource keySource;
    private final List<String> keyFields;
    private final String keyTypeFormat;
    private final String valueTypeFormat;
    private final boolean stringsAsJson;
    private final boolean bytesAsJson;
    private final OnNullValue nullValues;
    private final OnNullKey nullKeys;
    private final BinaryValues values;
    private final JsonValues json;
    private final Converted out = new Converted();
    private String lastTopic;
    private String lastValueType;
    private String lastKeyType;

    public RecordConverter(ConversionSettings settings, Binary binary) {
        this.keySource = settings.keySource();
        this.keyFields = settings.keyFields();
        this.keyTypeFormat = settings.keyTypeFormat();
        this.valueTypeFormat = settings.valueTypeFormat();
        this.stringsAsJson = settings.stringsAsJson();
        this.bytesAsJson = settings.bytesAsJson();
        this.nullValues = settings.onNullValue();
        this.nullKeys = settings.onNullKey();
        this.values = new BinaryValues(binary);
        this.json = new JsonValues(values);
    }

    /**
     * Converts one record.
     *
     * @throws ConversionException if the record cannot become an entry (the message says why)
     */
    public Converted convert(SinkRecord record) {
        out.key = null;
        out.value = null;
        Object value = record.value();
        if (value == null) {
            switch (nullValues) {
                case IGNORE:
                    out.action = Action.SKIP;
                    return out;
                case FAIL:
                    throw new ConversionException("the record has a null value and " + ConversionSettings.NULL_VALUES
                            + "=FAIL");
                default:
                    out.action = Action.REMOVE;
            }
        } else {
            out.action = Action.PUT;
        }
        Object key = key(record, value);
        if (key == null) {
            out.action = Action.SKIP;
            return out;
        }
        out.key = key;
        if (out.action == Action.PUT) {
            out.value = value(record, value);
        }
        return out;
    }

    private Object key(SinkRecord record, Object value) {
        switch (keySource) {
            case TOPIC_PARTITION_OFFSET:
                return tpo(record);
            case VALUE_FIELDS:
                if (value == null) {
                    throw new ConversionException("a null value has no key fields (" + ConversionSettings.KEY_MODE
                            + "=VALUE_FIELDS): a tombstone cannot name its key");
                }
                if (keyFields.size() == 1) {
                    Object k = values.field(value, keyFields.get(0));
                    if (k == null) {
                        throw new ConversionException("key field '" + keyFields.get(0) + "' is missing or null");
                    }
                    return k;
                }
                return values.fromFields(value, keyFields, keyType(record.topic()));
            default:
                Object k = record.key();
                if (k == null) {
                    switch (nullKeys) {
                        case IGNORE:
                            return null;
                        case TOPIC_PARTITION_OFFSET:
                            return tpo(record);
                        default:
                            throw new ConversionException("the record has a null key and " + ConversionSettings.NULL_KEYS
                                    + "=FAIL");
                    }
                }
                if (k instanceof String) {
                    return k; // the common key (StringConverter): exact class checks first, Map's interface check last
                }
                if (k instanceof Struct s) {
                    return values.fromStruct(s, keyType(record.topic()));
                }
                if (k instanceof Map<?, ?> m) {
                    return values.fromMap(m, keyType(record.topic()));
                }
                if (k instanceof ByteBuffer bb) {
                    byte[] a = new byte[bb.remaining()];
                    bb.duplicate().get(a);
                    return a;
                }
                return k;
        }
    }

    private Object value(SinkRecord record, Object value) {
        // the common values first, by exact class (Map's interface check last: it costs more per record)
        if (value instanceof byte[] bytes) {
            return bytesAsJson ? jsonBytes(bytes, record) : bytes;
        }
        if (value instanceof Struct s) {
            return values.fromStruct(s, valueType(record, s.schema().name()));
        }
        if (value instanceof String text) {
            if (!stringsAsJson) {
                return text;
            }
            try {
                return json.fromJson(text, valueType(record, null));
            } catch (ConversionException e) {
                throw new ConversionException(e.getMessage() + " (" + ConversionSettings.VALUE_STRING_FORMAT + "=JSON)", e);
            }
        }
        if (value instanceof Map<?, ?> m) {
            return values.fromMap(m, valueType(record, null));
        }
        if (value instanceof ByteBuffer bb) {
            byte[] a = new byte[bb.remaining()];
            bb.duplicate().get(a);
            return bytesAsJson ? jsonBytes(a, record) : a;
        }
        throw new ConversionException("the value is " + describe(value) + ", not an object: the sink stores a record"
                + " value as a binary object (a Struct, a schemaless JSON object, or a JSON object as text or bytes),"
                + " or text or bytes as they are (" + ConversionSettings.VALUE_STRING_FORMAT + "=STRING, "
                + ConversionSettings.VALUE_BYTES_FORMAT + "=BYTES)");
    }

    /** What a non-object value is, in the words of the JSON it most likely came from. */
    private static String describe(Object value) {
        if (value instanceof List<?>) {
            return "an array (" + value.getClass().getName() + ")";
        }
        if (value instanceof Number) {
            return "a number (" + value.getClass().getName() + ")";
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        return "a " + value.getClass().getName();
    }

    private Object jsonBytes(byte[] utf8, SinkRecord record) {
        try {
            return json.fromJson(utf8, valueType(record, null));
        } catch (ConversionException e) {
            throw new ConversionException(e.getMessage() + " (" + ConversionSettings.VALUE_BYTES_FORMAT + "=JSON)", e);
        }
    }

    private String valueType(SinkRecord record, String schemaName) {
        String topic = record.topic();
        if (schemaName == null && topic.equals(lastTopic) && lastValueType != null) {
            return lastValueType;
        }
        String t = valueTypeFormat.replace("${topic}", topic).replace("${schema}", schemaName != null ? schemaName : topic);
        if (schemaName == null) {
            if (!topic.equals(lastTopic)) {
                lastKeyType = null;
            }
            lastTopic = topic;
            lastValueType = t;
        }
        return t;
    }

    private String keyType(String topic) {
        if (topic.equals(lastTopic) && lastKeyType != null) {
            return lastKeyType;
        }
        String t = keyTypeFormat.replace("${topic}", topic);
        if (!topic.equals(lastTopic)) {
            lastValueType = null;
        }
        lastTopic = topic;
        lastKeyType = t;
        return t;
    }

    private static String tpo(SinkRecord record) {
        return record.topic() + "/" + record.kafkaPartition() + "/" + record.kafkaOffset();
    }
}
