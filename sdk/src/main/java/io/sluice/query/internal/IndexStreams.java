package io.sluice.query.internal;

import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** Entries in index order as a lazy stream: what {@code Cache.query} returns, embedded and remote. */
public final class IndexStreams {

    private IndexStreams() {
    }

    /**
     * A stream of the entries, decoding each with the function (given the source at the entry), at most
     * {@code limit} of them; closing the stream closes the source. The first entry is read now, so that a query's
     * errors (an unknown index, a value of the wrong type, an index being built) are thrown by the call that made
     * it; the rest are read as the stream is consumed.
     */
    public static <T> Stream<T> open(IndexEntries entries, long limit, Function<IndexEntries, T> decode) {
        boolean first;
        try {
            first = entries.next();
        } catch (RuntimeException | Error e) {
            try {
                entries.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        boolean hasFirst = first;
        Spliterator<T> split = new Spliterators.AbstractSpliterator<>(Long.MAX_VALUE,
                Spliterator.ORDERED | Spliterator.NONNULL) {
            private long left = limit;
            private boolean atFirst = hasFirst;
            private boolean ended = !hasFirst;

            @Override
            public boolean tryAdvance(Consumer<? super T> action) {
                if (ended || left <= 0) {
                    return false;
                }
                if (atFirst) {
                    atFirst = false;
                } else if (!entries.next()) {
                    ended = true;
                    return false;
                }
                left--;
                action.accept(decode.apply(entries));
                return true;
            }
        };
        return StreamSupport.stream(split, false).onClose(entries::close);
    }
}
