package io.sluice;

/**
 * The entry an {@link EntryProcessor} works on: its key, its current value, and the change the
 * processor makes. Nothing is stored until the processor returns; a processor that throws changes
 * nothing.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface MutableEntry<K, V> {

    /** The entry's key. */
    K key();

    /** The stored value, or {@code null} if the key has none (or the processor removed it). */
    V value();

    /** Whether the key has a value (after the processor's own changes so far). */
    boolean exists();

    /**
     * Replaces the value when the processor returns.
     *
     * @throws NullPointerException if value is null (use {@link #remove()})
     */
    void setValue(V value);

    /** Removes the entry when the processor returns. */
    void remove();
}
