package io.sluice.receiver.internal;

import io.sluice.Receivers;
import io.sluice.StreamReceiver;
import io.sluice.processor.internal.ProcessorRegistry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The receivers a node offers, by name: the built-ins and the custom receivers of its config.
 * Custom receivers get one instance per stripe thread, made by their factory when the registry is
 * built, so an instance is never called by two threads at once and a failing factory stops the
 * node from starting rather than failing batches later.
 */
public final class ReceiverRegistry {

    /** The built-in receivers, by the names {@link Receivers} gives them: stateless, shared by every stripe. */
    public static final Map<String, BatchReceiver> BUILT_INS = Map.of(Receivers.ISOLATED, IsolatedReceiver.INSTANCE,
            Receivers.INDIVIDUAL, IndividualReceiver.INSTANCE, Receivers.BATCHED, BatchedReceiver.INSTANCE);

    /**
     * Whether the node hands this receiver's batches to a cache store itself, as one batch, before
     * the receiver applies them: true for the built-ins, which write bytes straight into the
     * partition. A custom receiver reaches the store through the cache operations it calls; a
     * transformer receiver does not write through.
     */
    public static boolean storeWritesWholeBatch(BatchReceiver receiver) {
        return receiver == IsolatedReceiver.INSTANCE || receiver == IndividualReceiver.INSTANCE
                || receiver == BatchedReceiver.INSTANCE;
    }

    /**
     * Whether the receiver computes values where they lie (the transformer): its changes reach a cache
     * store after memory ({@link io.sluice.cachestore.internal.InPlaceChanges}), not before.
     */
    public static boolean changesInPlace(BatchReceiver receiver) {
        return receiver instanceof TransformReceiver;
    }

    /** Whether the receiver leaves keys already present as they are (so the store must too). */
    public static boolean insertsOnlyAbsent(BatchReceiver receiver) {
        return receiver == IsolatedReceiver.INSTANCE;
    }

    /** Per stripe: name to receiver. */
    private final List<Map<String, BatchReceiver>> byStripe;
    private final Set<String> names;

    /**
     * @param custom     custom receivers by name (names of built-ins are not allowed)
     * @param processors the node's entry processors: each gets a transformer receiver
     *                   ({@link Receivers#transform(String)})
     * @param stripes    number of stripe threads
     * @throws IllegalArgumentException if a custom name is a built-in's name
     * @throws IllegalStateException if a factory throws or returns null
     */
    public ReceiverRegistry(Map<String, ? extends Supplier<? extends StreamReceiver<?, ?>>> custom,
                            ProcessorRegistry processors, int stripes) {
        List<Map<String, BatchReceiver>> perStripe = new ArrayList<>(stripes);
        for (int s = 0; s < stripes; s++) {
            Map<String, BatchReceiver> receivers = new HashMap<>(BUILT_INS);
            for (Map.Entry<String, ? extends Supplier<? extends StreamReceiver<?, ?>>> e : custom.entrySet()) {
                String name = e.getKey();
                if (receivers.containsKey(name)) {
                    throw new IllegalArgumentException("receiver name '" + name + "' is reserved for a built-in receiver");
                }
                receivers.put(name, new CustomReceiverAdapter(name, create(name, e.getValue())));
            }
            for (String processor : processors.names()) {
                receivers.put(Receivers.TRANSFORM_PREFIX + processor,
                        new TransformReceiver(processor, processors.processor(processor, s)));
            }
            perStripe.add(Map.copyOf(receivers));
        }
        this.byStripe = List.copyOf(perStripe);
        this.names = Set.copyOf(byStripe.get(0).keySet());
    }

    private static StreamReceiver<?, ?> create(String name, Supplier<? extends StreamReceiver<?, ?>> factory) {
        StreamReceiver<?, ?> receiver;
        try {
            receiver = factory.get();
        } catch (RuntimeException e) {
            throw new IllegalStateException("the factory of receiver '" + name + "' threw: " + e, e);
        }
        return Objects.requireNonNull(receiver, () -> "the factory of receiver '" + name + "' returned null");
    }

    /** Whether a receiver of that name exists. */
    public boolean contains(String name) {
        return names.contains(name);
    }

    /** The receiver of that name for the stripe, or {@code null} if there is none. */
    public BatchReceiver receiver(String name, int stripe) {
        return byStripe.get(stripe).get(name);
    }

    /** Every receiver name, sorted (for error messages). */
    public Set<String> names() {
        return new TreeSet<>(names);
    }
}
