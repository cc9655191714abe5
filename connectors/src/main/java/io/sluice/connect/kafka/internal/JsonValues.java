package io.sluice.connect.kafka.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.AsciiStringBuilder;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON text or UTF-8 bytes straight into a binary object: one pass of Jackson's streaming parser
 * feeding the builder, no tree and no map in between (the SDK's {@code Binary.fromJson} builds a
 * tree first; on the sink's hot path the tree cost as much as the rest of the record). The mapping
 * is {@code fromJson}'s: text → String, an integral number → long (BigInteger beyond), another
 * number → double, true/false → boolean, an array → list, an object → a nested binary object of
 * type {@code <type>.<property>}; a null property is left out. Field names come from the parser's
 * symbol table (one String per name), which keeps the builder on its fast path; a text value goes
 * from the parser's char buffer into the object's bytes (no String per value). Bytes holding one flat
 * object of ASCII fields (the common record) are read by {@link FlatJsonReader} instead, with the same
 * builder calls and no parser per record, each value set as it is read; so is text whose chars are all
 * ASCII (copied into a reused byte array first). Not thread-safe: one per task.
 */
public final class JsonValues {

    /**
     * Doubles parsed by Jackson's fast parser (the JDK's {@code FloatingDecimal} was a tenth of the
     * task thread's time on StockOrder records).
     */
    private final JsonFactory factory = JsonFactory.builder()
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .enable(StreamReadFeature.USE_FAST_BIG_NUMBER_PARSER)
            .build();
    private final BinaryValues values;
    /** Flat ASCII records from bytes, without a Jackson parser per record; the rest goes to Jackson. */
    private final FlatJsonReader flat = new FlatJsonReader();
    /** Longer text goes to Jackson without the copy (the flat reader takes records up to 1 MiB). */
    private static final int MAX_ASCII_COPY = 1 << 16;
    /** An ASCII String's chars as bytes, for the flat reader; reused. */
    private byte[] ascii = new byte[1024];
    private final boolean flatReader;

    public JsonValues(BinaryValues values) {
        this(values, true);
    }

    /** With {@code flatReader} false every record goes through Jackson (the reference the tests compare with). */
    JsonValues(BinaryValues values, boolean flatReader) {
        this.values = values;
        this.flatReader = flatReader;
    }

    /** @throws ConversionException if the text is not one JSON object */
    public BinaryObject fromJson(String text, String typeName) {
        int n = text.length();
        if (flatReader && n <= MAX_ASCII_COPY) {
            // text of ASCII chars (a StringConverter's value, mostly) as its bytes, for the flat reader
            if (ascii.length < n) {
                ascii = new byte[Math.max(n, 2 * ascii.length)];
            }
            if (asciiBytes(text, n, ascii)) {
                BinaryObject o = flat(ascii, n, typeName);
                if (o != null) {
                    return o;
                }
            }
        }
        try (JsonParser p = factory.createParser(text)) {
            return read(p, typeName);
        } catch (IOException e) {
            throw new ConversionException("the value is not JSON: " + e.getMessage(), e);
        }
    }

    /** @throws ConversionException if the bytes are not one UTF-8 JSON object */
    public BinaryObject fromJson(byte[] utf8, String typeName) {
        if (flatReader) {
            BinaryObject o = flat(utf8, utf8.length, typeName);
            if (o != null) {
                return o;
            }
        }
        try (JsonParser p = factory.createParser(utf8)) {
            return read(p, typeName);
        } catch (IOException e) {
            throw new ConversionException("the value is not JSON: " + e.getMessage(), e);
        }
    }

    /** The flat reader's object of the first {@code n} bytes, or null if it does not read them. */
    private BinaryObject flat(byte[] utf8, int n, String typeName) {
        if (!(values.builder(typeName) instanceof AsciiStringBuilder b)) {
            return null;
        }
        try {
            return flat.read(utf8, n, b);
        } catch (RuntimeException e) {
            values.discard(typeName); // the builder holds the fields set before the failure
            throw e;
        }
    }

    /** Whether every char is ASCII; if so they are in {@code out} as bytes (a char over 0x7F stops the copy). */
    private static boolean asciiBytes(String text, int n, byte[] out) {
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c > 0x7F) {
                return false;
            }
            out[i] = (byte) c;
        }
        return true;
    }

    private BinaryObject read(JsonParser p, String typeName) throws IOException {
        JsonToken first = p.nextToken();
        if (first != JsonToken.START_OBJECT) {
            throw new ConversionException("the value is " + describe(first) + ", not a JSON object");
        }
        BinaryObject o = object(p, typeName);
        if (p.nextToken() != null) {
            throw new ConversionException("the value has more after its JSON object");
        }
        return o;
    }

    /** What JSON a value that is not an object holds. */
    private static String describe(JsonToken first) {
        if (first == null) {
            return "empty";
        }
        return switch (first) {
            case START_ARRAY -> "a JSON array";
            case VALUE_STRING -> "a JSON string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a JSON number";
            case VALUE_TRUE, VALUE_FALSE -> "a JSON boolean";
            case VALUE_NULL -> "JSON null";
            default -> "JSON starting with " + first;
        };
    }

    private BinaryObject object(JsonParser p, String typeName) throws IOException {
        BinaryObjectBuilder b = values.builder(typeName);
        try {
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                switch (p.nextToken()) {
                    // the parser's own char buffer, no String per value
                    case VALUE_STRING -> b.setString(name, p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                    case VALUE_NUMBER_INT -> {
                        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                            b.setField(name, p.getBigIntegerValue());
                        } else {
                            b.setLong(name, p.getLongValue());
                        }
                    }
                    case VALUE_NUMBER_FLOAT -> b.setDouble(name, p.getDoubleValue());
                    case VALUE_TRUE -> b.setBoolean(name, true);
                    case VALUE_FALSE -> b.setBoolean(name, false);
                    case VALUE_NULL -> { }
                    case START_OBJECT -> b.setField(name, object(p, typeName + "." + name));
                    case START_ARRAY -> b.setField(name, array(p, typeName + "." + name));
                    default -> throw new ConversionException("unexpected JSON at '" + name + "'");
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw new ConversionException("the JSON object of type '" + typeName + "' is not closed");
            }
            return b.build();
        } catch (RuntimeException | IOException e) {
            values.discard(typeName); // the builder holds the fields set before the failure
            throw e;
        }
    }

    private List<Object> array(JsonParser p, String elementType) throws IOException {
        List<Object> list = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t == null) {
                throw new ConversionException("a JSON array is not closed");
            }
            switch (t) {
                case VALUE_STRING -> list.add(p.getText());
                case VALUE_NUMBER_INT -> list.add(p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? p.getBigIntegerValue() : (Object) p.getLongValue());
                case VALUE_NUMBER_FLOAT -> list.add(p.getDoubleValue());
                case VALUE_TRUE -> list.add(Boolean.TRUE);
                case VALUE_FALSE -> list.add(Boolean.FALSE);
                case VALUE_NULL -> list.add(null);
                case START_OBJECT -> list.add(object(p, elementType));
                case START_ARRAY -> list.add(array(p, elementType));
                default -> throw new ConversionException("unexpected JSON in an array: " + t);
            }
        }
        return list;
    }
}
