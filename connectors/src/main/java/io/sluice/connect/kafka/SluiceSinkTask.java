package io.sluice.connect.kafka;

import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.DataStreamer;
import io.sluice.NodeUnreachableException;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.StreamerTimeoutException;
import io.sluice.binary.BinaryFormatException;
import io.sluice.binary.BinaryTypeMismatchException;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.connect.kafka.internal.Backoff;
import io.sluice.connect.kafka.internal.PartitionProgress;
import io.sluice.connect.kafka.internal.RecordConverter;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

/**
 * Streams records into Sluice caches: one remote client and one streamer per cache, owned by this
 * task alone (no static state, so a task restarts cleanly in the same worker).
 *
 * <p><b>Delivery: at-least-once.</b> Each record handed to a streamer is tracked with its batch's
 * future; {@link #preCommit} returns, per topic-partition, only the offset after the highest
 * contiguous record the node acknowledged (or that was skipped or reported as errant), so nothing
 * is committed that the node did not apply. A record may be applied twice (after a failure, from the
 * last committed offset): with an overwriting receiver the result is the same.
 *
 * <p><b>Never blocks without bound.</b> When buffer memory stays full for
 * {@value SluiceSinkConfig#MAX_BLOCK_MS} the task throws {@link RetriableException}: the worker pauses the
 * partitions and redelivers the batch, whose records already handed over are skipped by offset.
 *
 * <p><b>Node failures.</b> When a batch fails because a node is unreachable, the task drops its
 * streamers, rewinds every partition to the offset it last gave the worker to commit (so records
 * the node acknowledged since are sent again too: a node that lost its memory gets them back),
 * pauses them and reconnects with
 * exponential backoff ({@value SluiceSinkConfig#RETRY_BACKOFF_MS}); after
 * {@value SluiceSinkConfig#RETRY_TIMEOUT_MS} it fails with the last error. Any other batch failure
 * fails the task naming the topic, partition and offset, except that with {@code errors.tolerance=all}
 * a batch whose entries the node refused (malformed, of a mismatched type, or rejected by the receiver
 * as an illegal argument) sends its records to the errant record reporter when they are delivered again
 * (the partition seeks back to them; the records after them are sent again).
 *
 * <p><b>Errant records</b> (a record that cannot be converted, a null key or value refused by the
 * config, an entry too large) go to the worker's {@link ErrantRecordReporter} (dead letter queue) with
 * {@code errors.tolerance=all}; otherwise they fail the task naming topic, partition and offset.
 *
 * <p><b>Rebalances.</b> {@link #close(Collection)} forgets a revoked partition's progress: what it
 * handed to the streamer is still sent, but nothing more is committed for it; its new owner starts
 * from the last committed offset.
 */
public class SluiceSinkTask extends SinkTask {

    private static final Logger LOG = LoggerFactory.getLogger(SluiceSinkTask.class);

    private SluiceSinkConfig config;
    private StreamerOptions streamerOptions;
    private boolean tolerateAll;
    private ErrantRecordReporter reporter;
    private Backoff backoff;
    private String name;

    private Sluice sluice;
    private RecordConverter converter;
    private final Map<String, DataStreamer<Object, Object>> streamers = new HashMap<>();
    private final Map<String, String> cacheOfTopic = new HashMap<>();
    private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
    private long retryAtMs;
    private Throwable lastFailure;

    @Override
    public String version() {
        return SluiceSinkConnector.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        config = new SluiceSinkConfig(props);
        streamerOptions = config.streamerOptions();
        tolerateAll = "all".equals(props.getOrDefault(SluiceSinkConfig.ERRORS_TOLERANCE, "none").trim()
                .toLowerCase(Locale.ROOT));
        name = props.getOrDefault("name", "sluice-sink");
        try {
            reporter = context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            reporter = null; // a worker older than Kafka 2.6
        }
        backoff = new Backoff(config.retryBackoff(), config.retryBackoffMax(), config.retryTimeout());
        connect();
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            progress.put(tp, new PartitionProgress());
        }
        if (sluice == null) {
            context.pause(partitions.toArray(TopicPartition[]::new));
        }
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            progress.remove(tp);
        }
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (sluice == null) {
            rewindUnhandled(records);
            if (System.currentTimeMillis() >= retryAtMs) {
                connect();
            } else {
                context.timeout(Math.max(1, retryAtMs - System.currentTimeMillis()));
            }
            return;
        }
        for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
            Throwable failure = e.getValue().advance();
            if (failure == null) {
                continue;
            }
            if (!retriable(failure) && tolerateAll && rejectedEntries(failure)) {
                // The node refused the entries themselves: their records go to the errant record reporter
                // when they come again; the records after them are sent again.
                long from = e.getValue().rejectRun(failure);
                context.offset(e.getKey(), from);
                LOG.warn("{}: the node rejected records of topic {} partition {} from offset {} ({}); they go to the"
                        + " errant record reporter", name, e.getKey().topic(), e.getKey().partition(), from,
                        failure.toString());
                continue;
            }
            onBatchFailure(e.getKey(), e.getValue(), failure, records);
            return;
        }
        // a poll's records come in runs of one topic-partition: look its progress up once per run
        String runTopic = null;
        int runPartition = -1;
        PartitionProgress p = null;
        // and the streamer once per topic (streamers only close in disconnect, which ends this put)
        String streamerTopic = null;
        DataStreamer<Object, Object> streamer = null;
        for (SinkRecord r : records) {
            if (p == null || r.kafkaPartition() != runPartition || !r.topic().equals(runTopic)) {
                runTopic = r.topic();
                runPartition = r.kafkaPartition();
                p = progress.computeIfAbsent(new TopicPartition(runTopic, runPartition), t -> new PartitionProgress());
            }
            long offset = r.kafkaOffset();
            if (p.handled(offset) || p.awaitingRejectedRun(offset) || p.reportedBefore(offset)) {
                continue; // already with the streamer, comes again after a rejected run, or already reported
            }
            Throwable rejected = p.rejected(offset);
            if (rejected != null) {
                errant(r, p, rejected instanceof Exception ex ? ex : new ConnectException(rejected));
                continue;
            }
            RecordConverter.Converted c;
            try {
                c = converter.convert(r);
            } catch (RuntimeException e) {
                errant(r, p, e);
                continue;
            }
            if (c.action == RecordConverter.Action.SKIP) {
                p.add(offset, PartitionProgress.DONE);
                continue;
            }
            try {
                if (streamer == null || !r.topic().equals(streamerTopic)) {
                    streamer = streamerFor(r.topic());
                    streamerTopic = r.topic();
                }
                Future<?> f = c.action == RecordConverter.Action.REMOVE ? streamer.removeData(c.key)
                        : streamer.addData(c.key, c.value);
                p.add(offset, f);
            } catch (StreamerTimeoutException e) {
                // Buffer memory stayed full: the worker pauses, waits and redelivers this batch; the
                // records already handed over are skipped by offset.
                context.timeout(Math.max(1, config.retryBackoff().toMillis()));
                throw new RetriableException("buffer memory (" + SluiceSinkConfig.BUFFER_MEMORY + "="
                        + streamerOptions.bufferMemory() + ") is full; redelivering from " + where(r), e);
            } catch (IllegalArgumentException e) {
                errant(r, p, e); // larger than maxEntrySize
            } catch (NodeUnreachableException | IllegalStateException e) {
                failed(e, records);
                return;
            }
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        if (sluice != null) {
            for (DataStreamer<Object, Object> s : streamers.values()) {
                try {
                    s.tryFlush();
                } catch (RuntimeException e) {
                    LOG.debug("{}: tryFlush failed; the failure is handled on the next put", name, e);
                }
            }
        }
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
            PartitionProgress p = e.getValue();
            p.advance();
            if (p.started() && currentOffsets.containsKey(e.getKey())) {
                commit.put(e.getKey(), new OffsetAndMetadata(p.committable() + 1));
                p.committing();
            }
        }
        return commit;
    }

    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        // preCommit decides what is committed; nothing to wait for here.
    }

    @Override
    public void stop() {
        disconnect(false);
        progress.clear();
    }

    // ---- connection ----

    private void connect() {
        if (backoff.exhausted(System.currentTimeMillis())) {
            throw new ConnectException("the Sluice nodes " + config.getList(SluiceSinkConfig.ADDRESSES)
                    + " could not be reached for " + backoff.failingForMs(System.currentTimeMillis()) + " ms ("
                    + backoff.attempts() + " attempts, " + SluiceSinkConfig.RETRY_TIMEOUT_MS + "="
                    + config.retryTimeout().toMillis() + "); last error: " + lastFailure, lastFailure);
        }
        ClientConfig clientConfig = config.clientConfig(name); // a wrong TLS file fails here, naming its key
        try {
            sluice = SluiceClient.connect(clientConfig);
            converter = new RecordConverter(config.conversionSettings(), sluice.binary());
        } catch (NodeUnreachableException e) {
            sluice = null;
            javax.net.ssl.SSLHandshakeException tls = tlsHandshakeFailure(e);
            if (tls != null) {
                // the node's certificate is not trusted or does not name the address: retrying cannot help
                throw new ConnectException("the TLS handshake with the Sluice nodes "
                        + config.getList(SluiceSinkConfig.ADDRESSES) + " failed: " + tls.getMessage() + ". Check that "
                        + SluiceSinkConfig.TLS_TRUSTED_CERTIFICATES + " (else the worker JVM's trust store) holds the"
                        + " node's certificate or its CA, that the certificate names the host of the address, and"
                        + " that the node has TLS on", e);
            }
            scheduleRetry(e);
            return;
        } catch (RuntimeException e) {
            // refused (token, protocol version): retrying cannot help
            sluice = null;
            throw new ConnectException("the Sluice nodes " + config.getList(SluiceSinkConfig.ADDRESSES)
                    + " refused the connection: " + e.getMessage(), e);
        }
        if (backoff.attempts() > 0) {
            LOG.info("{}: reconnected to {} after {} attempts", name, config.getList(SluiceSinkConfig.ADDRESSES),
                    backoff.attempts());
        }
        backoff.reset();
        lastFailure = null;
        Set<TopicPartition> assigned = context.assignment();
        if (assigned != null && !assigned.isEmpty()) {
            context.resume(assigned.toArray(TopicPartition[]::new));
        }
    }

    /** The TLS handshake failure in a connection failure's causes, if that is what it was. */
    private static javax.net.ssl.SSLHandshakeException tlsHandshakeFailure(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLHandshakeException h) {
                return h;
            }
            for (Throwable s : c.getSuppressed()) {
                if (s instanceof javax.net.ssl.SSLHandshakeException h) {
                    return h;
                }
            }
        }
        return null;
    }

    private void scheduleRetry(Throwable cause) {
        lastFailure = cause;
        long now = System.currentTimeMillis();
        long wait = backoff.failed(now);
        retryAtMs = now + wait;
        LOG.warn("{}: Sluice nodes {} unreachable ({}); attempt {} in {} ms", name,
                config.getList(SluiceSinkConfig.ADDRESSES), cause.toString(), backoff.attempts() + 1, wait);
        Set<TopicPartition> assigned = context.assignment();
        if (assigned != null && !assigned.isEmpty()) {
            context.pause(assigned.toArray(TopicPartition[]::new));
        }
        context.timeout(Math.max(1, wait));
    }

    /** Closes the streamers and the client: flushing them (bounded), or dropping what they hold. */
    private void disconnect(boolean cancel) {
        for (Map.Entry<String, DataStreamer<Object, Object>> e : streamers.entrySet()) {
            try {
                e.getValue().close(cancel);
            } catch (RuntimeException ex) {
                LOG.warn("{}: closing the streamer of cache {} failed: {}", name, e.getKey(), ex.toString());
            }
        }
        streamers.clear();
        cacheOfTopic.clear();
        if (sluice != null) {
            try {
                sluice.close();
            } catch (RuntimeException ex) {
                LOG.warn("{}: closing the client failed: {}", name, ex.toString());
            }
            sluice = null;
        }
    }

    private DataStreamer<Object, Object> streamerFor(String topic) {
        String cache = cacheOfTopic.get(topic);
        if (cache == null) {
            cache = config.cacheFor(topic);
            cacheOfTopic.put(topic, cache);
        }
        DataStreamer<Object, Object> s = streamers.get(cache);
        if (s == null) {
            if (config.createCaches()) {
                try {
                    sluice.cache(cache); // one that exists is taken as it is (with its backups, indexes...)
                } catch (CacheNotFoundException absent) {
                    sluice.getOrCreateCache(CacheConfig.named(cache).withPartitions(config.cachePartitions()));
                }
            } else {
                try {
                    sluice.cache(cache);
                } catch (CacheNotFoundException e) {
                    throw new ConnectException("cache '" + cache + "' for topic '" + topic + "' does not exist and "
                            + SluiceSinkConfig.CACHE_CREATE + "=false", e);
                }
            }
            s = sluice.dataStreamer(cache, streamerOptions);
            streamers.put(cache, s);
        }
        return s;
    }

    // ---- failures ----

    private void onBatchFailure(TopicPartition tp, PartitionProgress p, Throwable failure,
                                Collection<SinkRecord> records) {
        if (!retriable(failure)) {
            throw new ConnectException("the node did not apply the records of topic " + tp.topic() + " partition "
                    + tp.partition() + " from offset " + (p.committable() + 1) + ": " + failure, failure);
        }
        failed(failure, records);
    }

    /** A node is unreachable: drop everything not acknowledged, rewind to it, pause, and reconnect later. */
    private void failed(Throwable cause, Collection<SinkRecord> records) {
        Map<TopicPartition, Long> rewind = new HashMap<>();
        for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
            long to = e.getValue().rewind();
            if (to >= 0) {
                rewind.put(e.getKey(), to);
            }
        }
        disconnect(true);
        if (!rewind.isEmpty()) {
            context.offset(rewind);
        }
        rewindUnhandled(records);
        LOG.warn("{}: a batch failed ({}); partitions rewound to their last committed offsets: {}",
                name, cause.toString(), rewind);
        scheduleRetry(cause);
    }

    /** Rewinds the partitions of records this task will not hand over now, so that they come again. */
    private void rewindUnhandled(Collection<SinkRecord> records) {
        Map<TopicPartition, Long> rewind = new HashMap<>();
        Set<TopicPartition> seen = new HashSet<>();
        for (SinkRecord r : records) {
            TopicPartition tp = new TopicPartition(r.topic(), r.kafkaPartition());
            if (!seen.add(tp)) {
                continue; // records of a partition come in offset order: the first is the lowest
            }
            PartitionProgress p = progress.computeIfAbsent(tp, t -> new PartitionProgress());
            if (p.handled(r.kafkaOffset())) {
                continue;
            }
            rewind.put(tp, p.started() ? p.lastHandled() + 1 : r.kafkaOffset());
        }
        if (!rewind.isEmpty()) {
            context.offset(rewind);
        }
    }

    /**
     * Whether the node refused the entries themselves (their bytes, their types, or a receiver that
     * rejected them as arguments), as opposed to the node failing as a whole (full, missing cache, stopping).
     */
    private static boolean rejectedEntries(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IllegalArgumentException || c instanceof NullPointerException
                    || c instanceof BinaryFormatException || c instanceof BinaryTypeMismatchException) {
                return true;
            }
        }
        return false;
    }

    private static boolean retriable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NodeUnreachableException || c instanceof TimeoutException
                    || c instanceof CancellationException || c instanceof StreamerTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private void errant(SinkRecord r, PartitionProgress p, Exception e) {
        if (!tolerateAll) {
            throw new ConnectException("the record at " + where(r) + " cannot be written to Sluice: " + e.getMessage()
                    + " (with errors.tolerance=all it would go to the errant record reporter / dead letter queue)", e);
        }
        if (reporter != null) {
            p.addReported(r.kafkaOffset(), reporter.report(r, e));
        } else {
            LOG.warn("{}: skipping the record at {}: {}", name, where(r), e.toString());
            p.add(r.kafkaOffset(), CompletableFuture.completedFuture(null));
        }
    }

    private static String where(SinkRecord r) {
        return "topic " + r.topic() + " partition " + r.kafkaPartition() + " offset " + r.kafkaOffset();
    }
}
