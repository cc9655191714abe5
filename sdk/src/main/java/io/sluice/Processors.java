package io.sluice;

import io.sluice.binary.BinaryObject;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The entry processors a caller can choose for {@link Cache#invoke}, {@link Cache#invokeAll} and
 * {@link Receivers#transform(String)}: built-in declarative field updates of stored
 * {@link BinaryObject}s, which need no registration, and custom processors registered on the node.
 *
 * <p>The built-ins change the stored object's bytes where they lie when the new field encodings
 * have the old lengths (a fixed-width field always does): no new row, no index work. Otherwise they
 * write the changed object once. A key that has no value is left absent. A value that is not a
 * binary object, a field whose stored type differs from the argument's, or a non-numeric field given
 * to {@link #add} fails that key with an {@link EntryProcessorException} naming key, field and
 * processor.
 */
public final class Processors {

    /** Name of the {@link #setFields} processor. Argument: a {@code Map<String, ?>} or a binary object. */
    public static final String SET_FIELDS = "sluice.setFields";
    /** Name of the {@link #setFieldsIfAbsent} processor. Argument: as {@link #SET_FIELDS}. */
    public static final String SET_FIELDS_IF_ABSENT = "sluice.setFieldsIfAbsent";
    /** Name of the {@link #add} processor. Argument: a map {@code {"field": name, "delta": number}}. */
    public static final String ADD = "sluice.add";
    /** Name of the {@link #removeField} processor. Argument: the field's name. */
    public static final String REMOVE_FIELD = "sluice.removeField";

    /** Prefix reserved for built-in processors: custom processors may not use it. */
    public static final String BUILT_IN_PREFIX = "sluice.";

    private Processors() {
    }

    /**
     * Sets fields of the stored object to the given values (adding fields it does not have).
     * Result: {@code true} if the key had a value, {@code false} if it had none (nothing stored).
     *
     * @throws IllegalArgumentException if fields is empty or names a blank field
     */
    public static ProcessorRef setFields(Map<String, ?> fields) {
        return new ProcessorRef(SET_FIELDS, checkFields(fields));
    }

    /** Sets one field; see {@link #setFields(Map)}. */
    public static ProcessorRef setField(String field, Object value) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(checkField(field), value);
        return setFields(fields);
    }

    /**
     * Sets only the fields the stored object does not have or holds as {@code null}. Result:
     * {@code true} if any field was set.
     */
    public static ProcessorRef setFieldsIfAbsent(Map<String, ?> fields) {
        return new ProcessorRef(SET_FIELDS_IF_ABSENT, checkFields(fields));
    }

    /**
     * Adds a number to a numeric field (byte, short, int, long, float or double; the field keeps its
     * type, integers wrap as Java arithmetic does). Result: the field's new value, or {@code null}
     * if the key had no value.
     */
    public static ProcessorRef add(String field, Number delta) {
        Objects.requireNonNull(delta, "delta");
        Map<String, Object> argument = new LinkedHashMap<>();
        argument.put("field", checkField(field));
        argument.put("delta", delta);
        return new ProcessorRef(ADD, argument);
    }

    /** Removes a field. Result: {@code true} if the stored object had it. */
    public static ProcessorRef removeField(String field) {
        return new ProcessorRef(REMOVE_FIELD, checkField(field));
    }

    /** A custom processor registered on the node under this name, called with no argument. */
    public static ProcessorRef named(String name) {
        return new ProcessorRef(name, null);
    }

    /** A custom processor registered on the node under this name, called with the argument. */
    public static ProcessorRef named(String name, Object argument) {
        return new ProcessorRef(name, argument);
    }

    private static Map<String, ?> checkFields(Map<String, ?> fields) {
        Objects.requireNonNull(fields, "fields");
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("no fields to set");
        }
        Map<String, Object> copy = new LinkedHashMap<>();
        for (Map.Entry<String, ?> e : fields.entrySet()) {
            copy.put(checkField(e.getKey()), e.getValue());
        }
        return copy;
    }

    private static String checkField(String field) {
        Objects.requireNonNull(field, "field");
        if (field.isBlank()) {
            throw new IllegalArgumentException("field name must not be blank");
        }
        return field;
    }
}
