package io.sluice;

import java.util.Objects;

/**
 * Names the receiver that applies a streamer's batches on the node; made by {@link Receivers}.
 *
 * @param name the receiver's name on the node
 */
public record ReceiverRef(String name) {

    public ReceiverRef {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("receiver name must not be blank");
        }
    }
}
