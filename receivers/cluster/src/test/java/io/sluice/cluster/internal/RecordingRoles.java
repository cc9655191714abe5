package io.sluice.cluster.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A node's side of the transitions, recorded: what it leads now and every call in order. */
final class RecordingRoles implements PartitionRoles {

    record Call(String what, int partition) {
    }

    private final Set<Integer> leading = ConcurrentHashMap.newKeySet();
    private final List<Call> calls = new ArrayList<>();
    private volatile int sessionsLost;

    Set<Integer> leading() {
        return Set.copyOf(leading);
    }

    synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    synchronized void forget() {
        calls.clear();
    }

    int sessionsLost() {
        return sessionsLost;
    }

    private synchronized void record(String what, int partition) {
        calls.add(new Call(what, partition));
    }

    @Override
    public void follow(int partition) {
        record("follow", partition);
    }

    @Override
    public void lead(int partition) {
        leading.add(partition);
        record("lead", partition);
    }

    @Override
    public void stopLeading(int partition) {
        leading.remove(partition);
        record("stopLeading", partition);
    }

    @Override
    public void release(int partition) {
        record("release", partition);
    }

    @Override
    public void drop(int partition) {
        record("drop", partition);
    }

    @Override
    public void sessionLost() {
        leading.clear();
        sessionsLost++;
    }
}
