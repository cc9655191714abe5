package io.sluice.cachestore.jdbc.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs concurrent calls together, as a database's group commit does: at most {@code leaders} groups
 * run at once; a call that arrives while every leader is busy queues, and the next thread to find a
 * leader free takes every queued call (at most {@code maxGroup}) and runs them as one group on its own
 * thread — no extra thread, no timer, no waiting for company: a call that finds a leader free runs at
 * once, alone if no one else is queued. Each caller returns when its own call has run, with its own
 * outcome.
 *
 * <p>Why: on a small machine, twenty connections each committing a 20-row statement spend most of the
 * database's CPU on per-statement and per-commit work and on switching between sessions; the same
 * statements sent by two connections as pipelined batches, one commit each, cost a fraction of it
 * (results log, 2026-11-24 01:03 probe).
 *
 * <p>A group's failure: when {@link Work#failsEveryCall} says the cause would fail each call alone too
 * (the database is away, after the work's own retries), every call of the group fails with it;
 * otherwise (one call's bad data fails the whole statement batch) each call is run again alone, so a
 * call fails only for its own reason.
 *
 * @param <R> a call's request
 */
public final class GroupCommit<R> {

    /** What a group and a single call do. Implementations are called by one leader thread per group. */
    public interface Work<R> {
        /** Runs the calls as one group (one transaction); throws if the group failed as a whole. */
        void runGroup(List<R> calls) throws Exception;

        /** Runs one call on its own. */
        void runAlone(R call) throws Exception;

        /** Whether the group's failure would fail each of its calls alone too, so they are not retried one by one. */
        boolean failsEveryCall(Exception groupFailure);

        /** The failure reported to one call of a group that failed as a whole. */
        Exception failureOf(R call, Exception groupFailure);
    }

    private final Work<R> work;
    private final int maxGroup;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition finished = lock.newCondition();
    private final ArrayDeque<Call<R>> queue = new ArrayDeque<>();
    private int idleLeaders;

    /**
     * @param leaders  how many groups may run at once (at least 1)
     * @param maxGroup the most calls in one group (at least 1)
     */
    public GroupCommit(Work<R> work, int leaders, int maxGroup) {
        if (leaders < 1 || maxGroup < 1) {
            throw new IllegalArgumentException("leaders " + leaders + " and maxGroup " + maxGroup + " must be at least 1");
        }
        this.work = work;
        this.idleLeaders = leaders;
        this.maxGroup = maxGroup;
    }

    /**
     * Runs the call, alone or in a group, and returns when it has run.
     *
     * @throws Exception the call's own failure (from {@link Work#runAlone}, or {@link Work#failureOf} its group's)
     */
    public void run(R request) throws Exception {
        Call<R> call = new Call<>(request);
        lock.lock();
        try {
            queue.addLast(call);
            while (!call.done) {
                if (idleLeaders == 0 || queue.isEmpty()) {
                    // Every leader is busy, or another leader took this call (the queue is empty but the call is
                    // not done): wait for a group to finish. Leading now would run an empty group.
                    finished.awaitUninterruptibly();
                    continue;
                }
                idleLeaders--;
                List<Call<R>> group = takeGroup();
                lock.unlock();
                try {
                    runGroup(group);
                } finally {
                    lock.lock();
                    idleLeaders++;
                    for (Call<R> c : group) {
                        c.done = true;
                    }
                    finished.signalAll();
                }
            }
        } finally {
            lock.unlock();
        }
        if (call.failure != null) {
            throw call.failure;
        }
    }

    /** Calls queued and not yet taken by a leader. */
    public int waiting() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    private List<Call<R>> takeGroup() {
        List<Call<R>> group = new ArrayList<>(Math.min(queue.size(), maxGroup));
        while (!queue.isEmpty() && group.size() < maxGroup) {
            group.add(queue.pollFirst());
        }
        return group;
    }

    /** Runs a group and records each call's outcome; never throws an {@link Exception}. */
    private void runGroup(List<Call<R>> group) {
        if (group.size() == 1) {
            runAlone(group.get(0));
            return;
        }
        List<R> requests = new ArrayList<>(group.size());
        for (Call<R> c : group) {
            requests.add(c.request);
        }
        try {
            work.runGroup(requests);
        } catch (Exception groupFailure) {
            boolean everyCall = work.failsEveryCall(groupFailure);
            for (Call<R> c : group) {
                if (everyCall) {
                    c.failure = work.failureOf(c.request, groupFailure);
                } else {
                    runAlone(c);
                }
            }
        }
    }

    private void runAlone(Call<R> call) {
        try {
            work.runAlone(call.request);
        } catch (Exception e) {
            call.failure = e;
        }
    }

    /** A queued call; its fields are written by the leader running it and read under the lock after {@code done}. */
    private static final class Call<R> {
        final R request;
        Exception failure;
        boolean done;

        Call(R request) {
            this.request = request;
        }
    }
}
