package io.sluice.node.internal.cluster;

import io.sluice.client.internal.PeerConnection;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.ReplicaCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A primary's ordered stream of records to one backup member: records are numbered as they are queued (under the
 * partition's write lock, so a partition's records keep their apply order), sent in REPLICATE frames by the
 * stream's own thread, one frame in flight, and acknowledged by sequence when the backup answers. Waiters
 * ({@link #whenAcknowledged}) are released once the backup acknowledged the records queued before them.
 *
 * <p>Bounded: records queued and not sent are at most {@code maxQueuedBytes}. A stream that would go past it, or
 * whose frame failed (the backup unreachable, its connection lost), is <b>reset</b>: its queue is dropped, its
 * waiters released, it takes a new stream id (so the backup knows it missed records and catches up again) and
 * {@code onReset} is told (the primary stops counting the backup as in sync). The next frame carries the new id,
 * even without records. Thread-safe.
 */
final class BackupStream implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackupStream.class);
    /** Bytes of records per REPLICATE frame at most (a record larger than that goes alone). */
    static final int FRAME_BYTES = 1 << 20;
    /** An idle stream sends an empty frame this often (the backup learns a reset without waiting for records). */
    static final long HEARTBEAT_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Sends one frame: the records, the stream id and first sequence; completes with the backup's refusals. */
    @FunctionalInterface
    interface Sender {
        List<ReplicaCodec.Refusal> send(long streamId, long firstSequence, List<byte[]> records) throws Exception;
    }

    private final String member;
    private final long maxQueuedBytes;
    private final Sender sender;
    private final Consumer<BackupStream> onReset;
    private final Refused onRefusals;
    private final Thread thread;

    private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private long queuedBytes;
    /** The sequence of the last record queued (records are numbered from 1). */
    private long lastQueued;
    /** The sequence of the last record taken into a frame. */
    private long lastTaken;
    /** The sequence of the last record the backup acknowledged (or given up at a reset). */
    private long acknowledged;
    private long streamId = newStreamId();
    /** A reset the backup has not been told of yet. */
    private boolean resetPending = true;
    private boolean closed;
    private long resets;

    private record Waiter(long sequence, Runnable done) {
    }

    /** What the backup refused in a frame whose last record had this sequence. */
    @FunctionalInterface
    interface Refused {
        void refused(BackupStream stream, List<ReplicaCodec.Refusal> refusals, long lastSequence);
    }

    /**
     * @param onReset    told after a reset, on the stream's thread or a writer's
     * @param onRefusals told the partitions the backup refused in a frame, on the stream's thread
     */
    BackupStream(String self, String member, long maxQueuedBytes, Sender sender, Consumer<BackupStream> onReset,
                 Refused onRefusals) {
        this.member = member;
        this.maxQueuedBytes = maxQueuedBytes;
        this.sender = sender;
        this.onReset = onReset;
        this.onRefusals = onRefusals;
        this.thread = new Thread(this::run, "sluice-replica-" + self + "-to-" + member);
        thread.setDaemon(true);
        thread.start();
    }

    /** A stream whose frames go over the member's replication connection. */
    static Sender over(String self, ReplicaLinks links, String member) {
        return (streamId, first, records) -> {
            PeerConnection c = links.to(member);
            return c.await(c.send(Op.REPLICATE, out -> ReplicaCodec.writeFrame(out, self, streamId, first, records),
                    ReplicaCodec::readRefusals));
        };
    }

    String member() {
        return member;
    }

    /** Resets so far (tests, status). */
    synchronized long resets() {
        return resets;
    }

    /**
     * Queues a record (the caller holds its partition's write lock). Past the bound the stream resets instead:
     * the record is dropped with the rest.
     */
    void add(byte[] record) {
        boolean reset;
        synchronized (this) {
            if (closed) {
                return;
            }
            lastQueued++;
            if (queuedBytes + record.length > maxQueuedBytes && !queue.isEmpty()) {
                reset = true;
                resetLocked("its queue would pass " + maxQueuedBytes + " bytes");
            } else {
                reset = false;
                queue.add(record);
                queuedBytes += record.length;
                notifyAll();
            }
        }
        if (reset) {
            released();
            onReset.accept(this);
        }
    }

    /** The sequence of the last record queued: what a waiter registered now waits for. */
    synchronized long lastQueued() {
        return lastQueued;
    }

    /**
     * Runs {@code done} once the backup acknowledged every record queued so far, or the stream reset or closed
     * (the backup stopped counting); at once if nothing is unacknowledged. Runs on the stream's thread or here.
     */
    void whenAcknowledged(Runnable done) {
        synchronized (this) {
            if (!closed && acknowledged < lastQueued) {
                waiters.add(new Waiter(lastQueued, done));
                return;
            }
        }
        done.run();
    }

    private void run() {
        List<byte[]> frame = new ArrayList<>();
        long lastSent = System.nanoTime();
        int failures = 0;
        while (true) {
            long id;
            long first;
            synchronized (this) {
                while (!closed && queue.isEmpty() && !resetPending
                        && System.nanoTime() - lastSent < HEARTBEAT_NANOS) {
                    try {
                        wait(TimeUnit.NANOSECONDS.toMillis(HEARTBEAT_NANOS) + 1);
                    } catch (InterruptedException e) {
                        closed = true;
                    }
                }
                if (closed) {
                    return;
                }
                frame.clear();
                int bytes = 0;
                while (!queue.isEmpty() && (frame.isEmpty() || bytes + queue.peek().length <= FRAME_BYTES)) {
                    byte[] r = queue.poll();
                    bytes += r.length;
                    queuedBytes -= r.length;
                    frame.add(r);
                }
                first = lastTaken + 1;
                lastTaken += frame.size();
                id = streamId;
                resetPending = false;
            }
            lastSent = System.nanoTime();
            List<ReplicaCodec.Refusal> refusals;
            try {
                refusals = sender.send(id, first, frame);
                failures = 0;
            } catch (Exception e) {
                if (reset(id, "a frame to it failed: " + e)) {
                    pause(++failures);
                }
                continue;
            }
            // Refusals first: a partition fenced by a stale epoch is so before its waiters are released.
            if (!refusals.isEmpty()) {
                onRefusals.refused(this, refusals, first + frame.size() - 1);
            }
            acknowledge(id, first + frame.size() - 1);
        }
    }

    /** Waits after a failed frame (the backup restarting, its address changing): 100 ms doubling up to 2 s. */
    private void pause(int failures) {
        try {
            Thread.sleep(Math.min(2000, 100L << Math.min(failures - 1, 5)) + ThreadLocalRandom.current().nextInt(50));
        } catch (InterruptedException e) {
            synchronized (this) {
                closed = true;
            }
        }
    }

    private void acknowledge(long id, long sequence) {
        List<Runnable> done = new ArrayList<>();
        synchronized (this) {
            if (id != streamId) {
                return; // reset meanwhile: its waiters were released then
            }
            acknowledged = Math.max(acknowledged, sequence);
            while (!waiters.isEmpty() && waiters.peek().sequence() <= acknowledged) {
                done.add(waiters.poll().done());
            }
        }
        done.forEach(Runnable::run);
    }

    /** Resets the stream if it is still the one the frame went on. @return true if it reset */
    private boolean reset(long id, String why) {
        synchronized (this) {
            if (id != streamId || closed) {
                return false;
            }
            resetLocked(why);
        }
        released();
        onReset.accept(this);
        return true;
    }

    /** Resets from outside (the backup stopped following everything: re-catch-up needed). */
    void reset(String why) {
        synchronized (this) {
            if (closed) {
                return;
            }
            resetLocked(why);
        }
        released();
        onReset.accept(this);
    }

    private final List<Runnable> toRelease = new ArrayList<>();

    private void resetLocked(String why) {
        resets++;
        if (lastQueued > acknowledged || resets == 1) {
            LOG.warn("replication stream to '{}' reset (stream {}, {} records unacknowledged): {}", member, streamId,
                    lastQueued - acknowledged, why);
        } else {
            LOG.debug("replication stream to '{}' reset again: {}", member, why);
        }
        queue.clear();
        queuedBytes = 0;
        lastTaken = lastQueued;
        acknowledged = lastQueued;
        streamId = newStreamId();
        resetPending = true;
        while (!waiters.isEmpty()) {
            toRelease.add(waiters.poll().done());
        }
        notifyAll();
    }

    private void released() {
        List<Runnable> done;
        synchronized (this) {
            done = new ArrayList<>(toRelease);
            toRelease.clear();
        }
        done.forEach(Runnable::run);
    }

    /**
     * Releases every waiter now (the primary stopped counting this backup: one that registered between a reset and
     * that must not wait for this stream's next acknowledgement).
     */
    void releaseWaiters() {
        List<Runnable> done = new ArrayList<>();
        synchronized (this) {
            while (!waiters.isEmpty()) {
                done.add(waiters.poll().done());
            }
        }
        done.forEach(Runnable::run);
    }

    /** Stops the stream: its waiters are released, its thread ends. */
    @Override
    public void close() {
        List<Runnable> done = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            queue.clear();
            queuedBytes = 0;
            while (!waiters.isEmpty()) {
                done.add(waiters.poll().done());
            }
            notifyAll();
        }
        thread.interrupt();
        done.forEach(Runnable::run);
    }

    private static long newStreamId() {
        return ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    }
}
