package io.sluice.node.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.pagestore.internal.BatchApplyException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.IntToDoubleFunction;

/**
 * The node's meters, each declared once here (docs/metrics.md lists them). Every meter is registered
 * when the node starts — errors for every {@link ErrorKind} and {@link Scope}, the queue gauge for
 * every stripe — so that the hot path only increments a counter it already holds: one call per
 * batch ({@link Counter#increment(double)} with the batch's entry count), nothing per entry, no
 * allocation, no registry lookup.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>meaning</th></tr>
 *   <tr><td>sluice.node.entries.applied</td><td>counter</td><td></td><td>entries of streamed batches applied</td></tr>
 *   <tr><td>sluice.node.batches.applied</td><td>counter</td><td></td><td>partition batches applied whole</td></tr>
 *   <tr><td>sluice.node.entry.bytes</td><td>counter (bytes)</td><td></td><td>entry bytes of the streamed batches
 *       the node was sent</td></tr>
 *   <tr><td>sluice.node.errors</td><td>counter</td><td>kind, scope</td><td>failed batches, requests answered with
 *       an error, connections closed for an error</td></tr>
 *   <tr><td>sluice.node.stripe.queued</td><td>gauge</td><td>stripe</td><td>tasks (partition batches, entry
 *       processor calls) waiting for the stripe's apply thread</td></tr>
 *   <tr><td>sluice.server.received.bytes</td><td>counter (bytes)</td><td></td><td>bytes read from clients'
 *       connections (after TLS)</td></tr>
 *   <tr><td>sluice.server.connections</td><td>gauge</td><td></td><td>open client connections</td></tr>
 *   <tr><td>sluice.server.buffer.bytes</td><td>gauge (bytes)</td><td></td><td>memory the server's buffer pool
 *       holds: answers not yet taken by their sockets, frames read and not yet applied, the pool's free room</td></tr>
 *   <tr><td>sluice.node.batch.apply</td><td>timer</td><td></td><td>time an apply thread spent on one streamed
 *       partition batch: checking it (batches from the network) and applying it</td></tr>
 * </table>
 *
 * <p>Thread-safe: the counters are the registry's (striped adders); any thread may report.
 */
public final class NodeMetrics {

    public static final String ENTRIES_APPLIED = "sluice.node.entries.applied";
    public static final String BATCHES_APPLIED = "sluice.node.batches.applied";
    public static final String ENTRY_BYTES = "sluice.node.entry.bytes";
    public static final String ERRORS = "sluice.node.errors";
    public static final String STRIPE_QUEUED = "sluice.node.stripe.queued";
    public static final String RECEIVED_BYTES = "sluice.server.received.bytes";
    public static final String CONNECTIONS = "sluice.server.connections";
    public static final String SERVER_BUFFER_BYTES = "sluice.server.buffer.bytes";
    public static final String BATCH_APPLY = "sluice.node.batch.apply";

    /** Where an error was met: the {@code scope} tag of {@link #ERRORS}. */
    public enum Scope {
        /** A partition batch failed (in whole or part); the other batches of its request went on. */
        BATCH,
        /** A request was answered with an error. */
        REQUEST,
        /** A connection was closed because of what it sent (a corrupt or oversized frame, a refused handshake). */
        CONNECTION;

        final String tag = name().toLowerCase(Locale.ROOT);
    }

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final Counter entriesApplied;
    private final Counter batchesApplied;
    private final Counter entryBytes;
    private final Counter receivedBytes;
    private final Timer batchApply;
    /** By scope ordinal, then error kind ordinal. */
    private final Counter[][] errors;
    private final AtomicInteger connections = new AtomicInteger();

    /**
     * Registers the node's meters.
     *
     * @param registry where they go (a node started without one gets a {@code SimpleMeterRegistry} of its own)
     * @throws NullPointerException if registry is null
     */
    public NodeMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        entriesApplied = add(Counter.builder(ENTRIES_APPLIED).description("entries of streamed batches applied")
                .register(registry));
        batchesApplied = add(Counter.builder(BATCHES_APPLIED).description("partition batches applied whole")
                .register(registry));
        entryBytes = add(Counter.builder(ENTRY_BYTES).baseUnit("bytes")
                .description("entry bytes of the streamed batches the node was sent").register(registry));
        receivedBytes = add(Counter.builder(RECEIVED_BYTES).baseUnit("bytes")
                .description("bytes read from client connections (after TLS)").register(registry));
        batchApply = add(Timer.builder(BATCH_APPLY)
                .description("time an apply thread spent on one streamed partition batch: checking and applying it")
                .register(registry));
        errors = new Counter[Scope.values().length][ErrorKind.values().length];
        for (Scope scope : Scope.values()) {
            for (ErrorKind kind : ErrorKind.values()) {
                errors[scope.ordinal()][kind.ordinal()] = add(Counter.builder(ERRORS)
                        .description("failed batches, requests answered with an error, connections closed for an error")
                        .tag("kind", kind.name()).tag("scope", scope.tag).register(registry));
            }
        }
        add(Gauge.builder(CONNECTIONS, connections, AtomicInteger::get).description("open client connections")
                .register(registry));
    }

    private <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    /** Registers the queue gauge of each stripe ({@code queued} gives a stripe's queue length). */
    void stripes(int count, IntToDoubleFunction queued) {
        for (int i = 0; i < count; i++) {
            int stripe = i;
            add(Gauge.builder(STRIPE_QUEUED, () -> queued.applyAsDouble(stripe))
                    .description("tasks (partition batches, entry processor calls) waiting for the stripe's apply thread")
                    .tag("stripe", Integer.toString(i)).register(registry));
        }
    }

    /**
     * Registers the gauge of a server's buffer pool ({@code bytes}: the memory it holds); the server takes it out with
     * {@link #remove} when it stops.
     */
    public synchronized Meter serverBuffers(DoubleSupplier bytes) {
        return add(Gauge.builder(SERVER_BUFFER_BYTES, bytes::getAsDouble).baseUnit("bytes")
                .description("memory the server's buffer pool holds (answers not yet taken by their sockets, frames"
                        + " read and not yet applied, free room)").strongReference(true).register(registry));
    }

    /** Takes one meter out of the registry (its source stopped before the node). */
    public synchronized void remove(Meter meter) {
        meters.remove(meter);
        registry.remove(meter);
    }

    /** The registry the meters are in. */
    public MeterRegistry registry() {
        return registry;
    }

    /** A streamed partition batch of this many entry bytes was sent to the node. */
    void batchReceived(int bytes) {
        entryBytes.increment(bytes);
    }

    /** A partition batch's final outcome (once durable per the WAL mode): counted once per batch. */
    void batchDone(BatchOutcome outcome) {
        if (outcome.applied() > 0) {
            entriesApplied.increment(outcome.applied());
        }
        if (outcome.succeeded()) {
            batchesApplied.increment();
        } else {
            // The cause of a batch that failed part way says why (the wire carries the wrapper's kind).
            Throwable error = outcome.error();
            if (error instanceof BatchApplyException && error.getCause() != null) {
                error = error.getCause();
            }
            error(Scope.BATCH, ErrorKind.of(error));
        }
    }

    /** An apply thread spent this long on one streamed partition batch (checking and applying it). */
    void batchApplied(long nanos) {
        batchApply.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** An error of this kind was met where the scope says. */
    public void error(Scope scope, ErrorKind kind) {
        errors[scope.ordinal()][kind.ordinal()].increment();
    }

    /** Bytes read from a client connection. */
    public void received(int bytes) {
        receivedBytes.increment(bytes);
    }

    /** A client connection was accepted. */
    public void connectionOpened() {
        connections.incrementAndGet();
    }

    /** An accepted client connection closed. */
    public void connectionClosed() {
        connections.decrementAndGet();
    }

    /** Takes the node's meters out of the registry (the node closed; the registry may outlive it). */
    synchronized void close() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
        meters.clear();
    }
}
