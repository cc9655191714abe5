package io.sluice.processor.internal;

import io.sluice.EntryProcessor;
import io.sluice.MutableEntry;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.pagestore.internal.StoredEntry;

import java.util.Objects;

/**
 * Runs a user's {@link EntryProcessor} registered on the node by name: decodes the key and (only if
 * asked for) the value, hands them over as a {@link MutableEntry}, and writes what the processor
 * decided once it has returned — so a processor that throws changes nothing.
 */
final class CustomProcessorAdapter implements StoredEntryProcessor {

    private final String name;
    private final EntryProcessor<Object, Object, Object> processor;
    private final ValueCodec codec;
    private GrowableBuffer scratch = new GrowableBuffer(256);

    @SuppressWarnings("unchecked")
    CustomProcessorAdapter(String name, EntryProcessor<?, ?, ?> processor, ValueCodec codec) {
        this.name = name;
        this.processor = (EntryProcessor<Object, Object, Object>) processor;
        this.codec = codec;
    }

    @Override
    public Object process(StoredEntry entry, byte[] key, int keyOffset, int keyLength, Object argument)
            throws Exception {
        Entry e = new Entry(entry, codec.decode(key, keyOffset, keyLength, true));
        Object result = processor.process(e, argument);
        if (e.removed) {
            entry.remove();
        } else if (e.changed) {
            scratch.reset();
            codec.encode(e.value, scratch);
            entry.put(scratch.array(), 0, scratch.position());
            if (scratch.oversized()) {
                scratch = new GrowableBuffer(256);
            }
        }
        return result;
    }

    @Override
    public String toString() {
        return "processor '" + name + "' (" + processor.getClass().getName() + ")";
    }

    /** The entry a processor sees; its changes are applied when the processor returns. */
    private final class Entry implements MutableEntry<Object, Object> {
        private final StoredEntry stored;
        private final Object key;
        private Object value;
        private boolean loaded;
        private boolean changed;
        private boolean removed;

        Entry(StoredEntry stored, Object key) {
            this.stored = stored;
            this.key = key;
        }

        @Override
        public Object key() {
            return key;
        }

        @Override
        public Object value() {
            if (!loaded) {
                loaded = true;
                if (stored.exists()) {
                    byte[] bytes = new byte[stored.valueLength()];
                    stored.readValue(bytes, 0);
                    value = codec.decode(bytes, 0, bytes.length, true);
                }
            }
            return value;
        }

        @Override
        public boolean exists() {
            return value() != null;
        }

        @Override
        public void setValue(Object newValue) {
            Objects.requireNonNull(newValue, "value (use remove() to remove the entry)");
            value = newValue;
            loaded = true;
            changed = true;
            removed = false;
        }

        @Override
        public void remove() {
            value = null;
            loaded = true;
            removed = true;
            changed = false;
        }
    }
}
