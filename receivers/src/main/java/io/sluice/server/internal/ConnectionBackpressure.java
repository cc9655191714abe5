package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One connection's backpressure against {@code maxQueuedBytes}. Counted: the bytes of STREAM requests read
 * and not yet applied, and of answers written and not yet taken by the socket; and the requests handed to the
 * op pool whose answers are not made yet (their size is not known until then). Above the byte limit, or with
 * {@link #MAX_RUNNING} requests running, the socket is no longer read and the frames already read (what the
 * socket reads under way held) wait here, in order; once the bytes are at most half the limit and the requests
 * running at most half theirs, they are handled and reading resumes. Held frames are not counted: they are not
 * handled before the count falls, so counting them could keep it up for ever.
 * So a client that streams faster than the node applies, or does not read its answers, is held back by
 * TCP (its writes block), and the node keeps for it at most {@code maxQueuedBytes} plus the answers of at most
 * {@link #MAX_RUNNING} requests, however many it pipelines and however large the values it reads.
 *
 * <p>Threads: frames arrive and are held or handled on the connection's event loop; bytes are counted and
 * released, and running requests end, from any thread (apply threads, the op pool, the event loop);
 * {@code paused} changes under this object's lock, and auto-read follows it on the event loop only (see
 * {@link #onEventLoop}).
 */
final class ConnectionBackpressure {

    /**
     * Requests of one connection the op pool may hold at once: the node's two op threads stay busy with far fewer,
     * and a write's count ends when it ran (its wait for durability is not counted), so group commits are not cut
     * short; 64 answers of values up to {@code maxFrameSize} are what a pipelining reader can make the node hold
     * beyond {@code maxQueuedBytes}.
     */
    static final int MAX_RUNNING = 64;

    private final Channel channel;
    private final long maxQueuedBytes;
    private final AtomicInteger running = new AtomicInteger();
    private final Consumer<ByteBuf> handler;
    private final BooleanSupplier stopping;
    private final AtomicLong queued = new AtomicLong();
    /** Frames read while paused; event loop only. */
    private final ArrayDeque<ByteBuf> held = new ArrayDeque<>();
    private boolean paused;

    /** @param handler handles a frame (on the event loop) and owns it from then on */
    ConnectionBackpressure(Channel channel, long maxQueuedBytes, Consumer<ByteBuf> handler) {
        this(channel, maxQueuedBytes, handler, () -> false);
    }

    /**
     * @param handler  handles a frame (on the event loop) and owns it from then on
     * @param stopping true once the server stops taking requests: a resume then leaves the socket unread
     */
    ConnectionBackpressure(Channel channel, long maxQueuedBytes, Consumer<ByteBuf> handler, BooleanSupplier stopping) {
        this.channel = channel;
        this.maxQueuedBytes = maxQueuedBytes;
        this.handler = handler;
        this.stopping = stopping;
    }

    /** A frame read (event loop): handled now, or held while the connection is over its limit. */
    void onFrame(ByteBuf frame) {
        if (isPaused() || !held.isEmpty()) {
            held.add(frame);
            // Stop the socket's read loop now: a pause made by another thread turns auto-read off only when its task
            // gets the event loop, and until then the loop goes on reading (up to 16 reads of 64 KiB an event, each
            // GET in them an answer to come: ~16,000 GETs were seen held at once).
            applyAutoRead();
            return;
        }
        handler.accept(frame);
    }

    /** Writes an answer, counted until the socket took it. */
    void send(ByteBuf answer) {
        int size = answer.readableBytes();
        queue(size);
        channel.writeAndFlush(answer).addListener(f -> release(size));
    }

    /** Counts bytes the connection costs the node; over the limit, the socket is no longer read. */
    void queue(long bytes) {
        if (queued.addAndGet(bytes) > maxQueuedBytes) {
            pause();
        }
    }

    /** Bytes no longer held for the connection; at half the limit, held frames are handled and reading resumes. */
    void release(long bytes) {
        if (queued.addAndGet(-bytes) <= maxQueuedBytes / 2) {
            resumeIfDue();
        }
    }

    /**
     * A request was handed to the op pool (event loop): at {@link #MAX_RUNNING} of them the socket is no longer read,
     * so the frames after this one wait. Each is ended by {@link #requestRan()}.
     */
    void requestStarted() {
        if (running.incrementAndGet() >= MAX_RUNNING) {
            pause();
        }
    }

    /** A request handed to the op pool ran (its answer, if made, is counted in bytes already): any thread. */
    void requestRan() {
        if (running.decrementAndGet() <= MAX_RUNNING / 2) {
            resumeIfDue();
        }
    }

    private void pause() {
        synchronized (this) {
            if (paused) {
                return;
            }
            paused = true;
        }
        onEventLoop(this::applyAutoRead);
        // Releases between the count that crossed a limit and the pause saw no pause to end: if they brought the
        // counts down to half, nothing else may ever resume (nothing left in flight), so look again now. A release
        // after the pause sees it itself; resume() checks again, so resuming twice is harmless.
        resumeIfDue();
    }

    private void resumeIfDue() {
        if (belowHalf() && isPaused() && channel.isActive()) {
            onEventLoop(this::resume);
        }
    }

    /** Both counts at most half their limits: a paused connection may be read again. */
    private boolean belowHalf() {
        return queued.get() <= maxQueuedBytes / 2 && running.get() <= MAX_RUNNING / 2;
    }

    /**
     * Runs a change of auto-read on the connection's event loop: Netty's NIO channel clears a pending read
     * with a task when auto-read is turned off from another thread, and that task, run after auto-read was
     * turned on again, would leave the socket unread for good.
     */
    private void onEventLoop(Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
            return;
        }
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            // the server is stopping: nothing more is read anyway
        }
    }

    /** Event loop: the socket is read unless paused, frames are held, or the server stops taking requests. */
    private void applyAutoRead() {
        boolean read;
        synchronized (this) {
            read = !paused && held.isEmpty() && !stopping.getAsBoolean();
        }
        if (channel.config().isAutoRead() != read && channel.isActive()) {
            channel.config().setAutoRead(read);
        }
    }

    private synchronized boolean isPaused() {
        return paused;
    }

    private void resume() {
        synchronized (this) {
            if (!paused || !belowHalf()) {
                return;
            }
            paused = false;
        }
        while (!held.isEmpty() && !isPaused()) {
            handler.accept(held.poll());
        }
        applyAutoRead();
    }

    /** The connection closed (event loop): held frames go back to the pool. */
    void discard() {
        ByteBuf frame;
        while ((frame = held.poll()) != null) {
            frame.release();
        }
    }

    /** For diagnostics; not synchronized with the event loop (held's size may be stale). */
    @Override
    public String toString() {
        return "ConnectionBackpressure{queued=" + queued.get() + " of " + maxQueuedBytes + ", running=" + running.get()
                + " of " + MAX_RUNNING + ", paused=" + isPaused()
                + ", held=" + held.size() + ", autoRead=" + channel.config().isAutoRead() + '}';
    }
}
