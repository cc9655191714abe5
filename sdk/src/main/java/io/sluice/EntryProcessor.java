package io.sluice;

/**
 * A named operation on one entry, run on the node that owns the key while no other write of the
 * key's partition runs: {@link Cache#invoke}, {@link Cache#invokeAll} and the transformer receiver
 * ({@link Receivers#transform(String)}) call it. Processors are registered on the node by name
 * ({@code NodeConfig.builder().processor("name", factory)}) and chosen with {@link Processors#named};
 * clients never ship code. The built-in processors of {@link Processors} need no registration.
 *
 * <p>The node calls a factory once per apply thread, so an instance is never called by two threads
 * at once. A processor that throws fails only its own key: the entry keeps its value and the caller
 * gets the exception as the cause of an {@link EntryProcessorException} naming the key.
 *
 * @param <K> key type
 * @param <V> value type
 * @param <R> result type (returned to the caller of {@code invoke}; {@code null} for none)
 */
@FunctionalInterface
public interface EntryProcessor<K, V, R> {

    /**
     * Processes one entry.
     *
     * @param entry    the entry: read its value, set or remove it
     * @param argument the argument of the {@link ProcessorRef} the caller passed (for the transformer
     *                 receiver, the streamed value), decoded as a cache value is; may be {@code null}
     * @return the result for the caller, or {@code null}
     */
    R process(MutableEntry<K, V> entry, Object argument) throws Exception;
}
