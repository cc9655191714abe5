package io.sluice.client.internal;

import io.sluice.NodeUnreachableException;
import io.sluice.protocol.internal.NotOwnerException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * One operation's items (keys, partition batches, partitions) sent to the owners of their partitions: grouped by
 * owner, one request per owner, answers put back in the items' order. In a cluster, the items a node refused
 * (NOT_OWNER for the whole request, or an item's answer that says so), the items of a node that could not be
 * reached and the items of partitions with no owner are sent again after the map was refreshed ({@link Routing}),
 * at once if the map changed, else after a backoff or as soon as a newer map comes (asked for every
 * {@link Routing#MAP_POLL_MILLIS} meanwhile), until {@code requestTimeout} after the first attempt; then the
 * operation fails naming the partitions no node served. Standalone, each item is sent once, as it always was
 * (its node's connection retries are {@link Nodes}'). Items may so reach a node more than once: at-least-once.
 *
 * @param <T> an item's answer
 */
final class RoutedCall<T> {

    /** Sends some of the items to one node: the future's list holds one answer per item, in their order. */
    @FunctionalInterface
    interface Sender<T> {
        CompletableFuture<List<T>> send(String nodeId, int[] items);
    }

    /** Picks the node a partition's items go to this round: null if none serves it now. */
    @FunctionalInterface
    interface Target {
        String node(int partition);
    }

    private final Routing routing;
    private final Nodes nodes;
    private final Target target;
    private final String what;
    private final int[] partitions;
    private final int partitionCount;
    private final Sender<T> sender;
    /** Says whether an item's answer is NOT_OWNER (to be sent again); null if answers never are. */
    private final Predicate<T> notOwner;
    /** The answer of an item no node served in time; null to fail the operation instead. */
    private final BiFunction<Integer, RuntimeException, T> timedOut;
    private final CompletableFuture<List<T>> result = new CompletableFuture<>();
    private final Object[] answers;
    private final long start = System.nanoTime();
    private int[] pending;
    private int attempts;
    // The round in progress; guarded by this.
    private long roundVersion;
    private List<Integer> redo;
    private String hint;
    private Throwable last;
    private Throwable failure;
    private int groupsLeft;

    private RoutedCall(Routing routing, Nodes nodes, String what, int[] partitions, int partitionCount, Target target,
                       Sender<T> sender, Predicate<T> notOwner, BiFunction<Integer, RuntimeException, T> timedOut) {
        this.routing = routing;
        this.target = target;
        this.nodes = nodes;
        this.what = what;
        this.partitions = partitions;
        this.partitionCount = partitionCount;
        this.sender = sender;
        this.notOwner = notOwner;
        this.timedOut = timedOut;
        this.answers = new Object[partitions.length];
        this.pending = new int[partitions.length];
        for (int i = 0; i < pending.length; i++) {
            pending[i] = i;
        }
    }

    /**
     * Sends the items; never throws (the future fails with the node's error, or {@link NodeUnreachableException}
     * naming the partitions no node served within the request timeout).
     *
     * @param what       the operation and cache, for errors ("put to cache 'orders'")
     * @param partitions per item its partition
     * @param partitionCount the cache's partitions (checked against the map's), or -1 if not known here
     * @param notOwner   whether an item's answer is a NOT_OWNER refusal; null if they never are
     * @param timedOut   the answer of an item still unserved at the deadline; null to fail the whole operation
     */
    static <T> CompletableFuture<List<T>> send(Routing routing, Nodes nodes, String what, int[] partitions,
                                              int partitionCount, Sender<T> sender, Predicate<T> notOwner,
                                              BiFunction<Integer, RuntimeException, T> timedOut) {
        return send(routing, nodes, what, partitions, partitionCount, p -> routing.owner(p, partitionCount), sender,
                notOwner, timedOut);
    }

    /**
     * As {@link #send(Routing, Nodes, String, int[], int, Sender, Predicate, BiFunction)}, to the node {@code target}
     * picks for each partition each round (scans from backups) instead of the partition's owner.
     */
    static <T> CompletableFuture<List<T>> send(Routing routing, Nodes nodes, String what, int[] partitions,
                                              int partitionCount, Target target, Sender<T> sender,
                                              Predicate<T> notOwner, BiFunction<Integer, RuntimeException, T> timedOut) {
        RoutedCall<T> call = new RoutedCall<>(routing, nodes, what, partitions, partitionCount, target, sender,
                notOwner, timedOut);
        if (partitions.length == 0) {
            return CompletableFuture.completedFuture(List.of());
        }
        call.round();
        return call.result;
    }

    /** Sends every pending item to its owner now. */
    private void round() {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        List<Integer> unowned = new ArrayList<>();
        try {
            for (int i : pending) {
                String owner = target.node(partitions[i]);
                if (owner == null) {
                    unowned.add(i);
                } else {
                    groups.computeIfAbsent(owner, n -> new ArrayList<>()).add(i);
                }
            }
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        synchronized (this) {
            attempts++;
            roundVersion = routing.version();
            redo = unowned;
            hint = null;
            groupsLeft = groups.size();
        }
        if (groups.isEmpty()) {
            endRound();
            return;
        }
        for (Map.Entry<String, List<Integer>> group : groups.entrySet()) {
            String node = group.getKey();
            int[] items = group.getValue().stream().mapToInt(Integer::intValue).toArray();
            if (!nodes.isConnected(node) && nodes.onEventLoop()) {
                // Sending opens the connection, which the event loop (completing an earlier request) must not wait for.
                routing.schedule(() -> sendGroup(node, items), 0);
            } else {
                sendGroup(node, items);
            }
        }
    }

    private void sendGroup(String node, int[] items) {
        CompletableFuture<List<T>> sent;
        try {
            sent = sender.send(node, items);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((list, error) -> groupDone(node, items, list, error));
    }

    private void groupDone(String node, int[] items, List<T> list, Throwable error) {
        boolean clustered = routing.clustered();
        synchronized (this) {
            if (error != null) {
                Throwable cause = Retriable.unwrap(error);
                if (clustered && (cause instanceof NotOwnerException || cause instanceof NodeUnreachableException)) {
                    for (int i : items) {
                        redo.add(i);
                    }
                    if (cause instanceof NotOwnerException) {
                        hint = node;
                    }
                    last = cause;
                } else if (failure == null) {
                    failure = cause;
                }
            } else if (list == null || list.size() != items.length) {
                if (failure == null) {
                    failure = new IllegalStateException("node " + node + " answered " + (list == null ? "nothing"
                            : list.size() + " answers") + " to a request of " + items.length + " for " + what);
                }
            } else {
                for (int j = 0; j < items.length; j++) {
                    T answer = list.get(j);
                    if (clustered && notOwner != null && notOwner.test(answer)) {
                        redo.add(items[j]);
                        hint = node;
                        last = new NotOwnerException("node " + node + " does not serve partition "
                                + partitions[items[j]] + " now");
                    } else {
                        answers[items[j]] = answer;
                    }
                }
            }
            if (--groupsLeft > 0) {
                return;
            }
        }
        endRound();
    }

    @SuppressWarnings("unchecked")
    private void endRound() {
        List<Integer> again;
        long version;
        String ask;
        synchronized (this) {
            if (failure != null) {
                result.completeExceptionally(failure);
                return;
            }
            again = redo;
            version = roundVersion;
            ask = hint;
        }
        if (again.isEmpty()) {
            result.complete((List<T>) Arrays.asList(answers));
            return;
        }
        long left = routing.requestTimeoutNanos() - (System.nanoTime() - start);
        if (left <= 0) {
            giveUp(again);
            return;
        }
        pending = again.stream().mapToInt(Integer::intValue).toArray();
        if (routing.version() > version) {
            routing.schedule(this::round, 0); // another call brought a newer map meanwhile
            return;
        }
        routing.refresh(ask).whenComplete((done, error) -> {
            if (routing.version() > version) {
                routing.schedule(this::round, 0);
                return;
            }
            // The next round after the backoff, or as soon as a newer map comes (a failover's promotion), if sooner.
            long remaining = (routing.requestTimeoutNanos() - (System.nanoTime() - start)) / 1_000_000;
            NextRound next = new NextRound();
            routing.schedule(next, Math.max(0, Math.min(routing.backoffMillis(attempts), remaining + 1)));
            routing.onNewerMap(version, next);
        });
    }

    /** Starts the next round once, whichever comes first: the backoff's end or a newer map. */
    private final class NextRound extends java.util.concurrent.atomic.AtomicBoolean implements Runnable {
        @Override
        public void run() {
            if (compareAndSet(false, true)) {
                routing.stopWaiting(this);
                round();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void giveUp(List<Integer> items) {
        List<Integer> unserved = new ArrayList<>();
        for (int i : items) {
            if (!unserved.contains(partitions[i])) {
                unserved.add(partitions[i]);
            }
        }
        Throwable cause;
        synchronized (this) {
            cause = last;
        }
        NodeUnreachableException error = routing.noOwner(what, unserved, attempts, cause);
        if (timedOut == null) {
            result.completeExceptionally(error);
            return;
        }
        for (int i : items) {
            answers[i] = timedOut.apply(i, error);
        }
        result.complete((List<T>) Arrays.asList(answers));
    }
}
