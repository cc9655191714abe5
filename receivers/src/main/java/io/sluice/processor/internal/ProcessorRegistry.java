package io.sluice.processor.internal;

import io.sluice.EntryProcessor;
import io.sluice.Processors;
import io.sluice.binary.internal.ValueCodec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The entry processors a node offers, by name: the built-ins of {@link Processors} and the custom
 * processors of its config. Every apply thread has its own instances, made when the registry is
 * built, so an instance is never called by two threads at once and a failing factory stops the node
 * from starting rather than failing calls later.
 */
public final class ProcessorRegistry {

    private final List<Map<String, StoredEntryProcessor>> byStripe;
    private final Set<String> names;

    /**
     * @param custom  custom processors by name (checked by the node's config)
     * @param stripes number of apply threads
     * @param codec   the node's codec
     * @throws IllegalStateException if a factory throws or returns null
     */
    public ProcessorRegistry(Map<String, ? extends Supplier<? extends EntryProcessor<?, ?, ?>>> custom, int stripes,
                             ValueCodec codec) {
        List<Map<String, StoredEntryProcessor>> perStripe = new ArrayList<>(stripes);
        for (int s = 0; s < stripes; s++) {
            Map<String, StoredEntryProcessor> processors = FieldProcessors.create(codec);
            for (Map.Entry<String, ? extends Supplier<? extends EntryProcessor<?, ?, ?>>> e : custom.entrySet()) {
                processors.put(e.getKey(), new CustomProcessorAdapter(e.getKey(), create(e.getKey(), e.getValue()),
                        codec));
            }
            perStripe.add(Map.copyOf(processors));
        }
        this.byStripe = List.copyOf(perStripe);
        this.names = Set.copyOf(byStripe.get(0).keySet());
    }

    private static EntryProcessor<?, ?, ?> create(String name, Supplier<? extends EntryProcessor<?, ?, ?>> factory) {
        EntryProcessor<?, ?, ?> processor;
        try {
            processor = factory.get();
        } catch (RuntimeException e) {
            throw new IllegalStateException("the factory of processor '" + name + "' threw: " + e, e);
        }
        return Objects.requireNonNull(processor, () -> "the factory of processor '" + name + "' returned null");
    }

    /** Whether a processor of that name exists. */
    public boolean contains(String name) {
        return names.contains(name);
    }

    /** Every processor name, sorted (for error messages). */
    public Set<String> names() {
        return new TreeSet<>(names);
    }

    /**
     * The processor of that name for the apply thread.
     *
     * @throws IllegalArgumentException naming the registered processors if there is none of that name
     */
    public StoredEntryProcessor processor(String name, int stripe) {
        StoredEntryProcessor processor = byStripe.get(stripe).get(name);
        if (processor == null) {
            throw unknown(name);
        }
        return processor;
    }

    /** Keys the built-in processors changed in place, over every apply thread (a metric). */
    public long inPlaceUpdates() {
        long n = 0;
        for (Map<String, StoredEntryProcessor> stripe : byStripe) {
            for (StoredEntryProcessor p : stripe.values()) {
                if (p instanceof FieldProcessors f) {
                    n += f.inPlaceUpdates();
                }
            }
        }
        return n;
    }

    /** Keys the built-in processors rewrote whole, over every apply thread (a metric). */
    public long rewrites() {
        long n = 0;
        for (Map<String, StoredEntryProcessor> stripe : byStripe) {
            for (StoredEntryProcessor p : stripe.values()) {
                if (p instanceof FieldProcessors f) {
                    n += f.rewrites();
                }
            }
        }
        return n;
    }

    /** The error for a processor name the node does not have. */
    public IllegalArgumentException unknown(String name) {
        return new IllegalArgumentException("processor '" + name + "' is not registered on the node; it has "
                + names() + " (register custom processors with NodeConfig.builder().processor(name, factory))");
    }
}
