package io.sluice;

import java.util.Objects;

/**
 * Names an {@link EntryProcessor} on the node and carries its argument; made by {@link Processors}.
 * The argument travels like a cache value (any type the binary encoding supports, a POJO or a
 * {@link io.sluice.binary.BinaryObject}).
 *
 * @param name     the processor's name on the node
 * @param argument the argument given to every call, or {@code null}
 */
public record ProcessorRef(String name, Object argument) {

    public ProcessorRef {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("processor name must not be blank");
        }
    }

    /** The same processor with another argument. */
    public ProcessorRef withArgument(Object newArgument) {
        return new ProcessorRef(name, newArgument);
    }
}
