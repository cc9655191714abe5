package io.sluice.client.internal;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.sluice.NodeUnreachableException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Retries a node's requests (Resilience4j {@link Retry}: exponential backoff with jitter, the failures
 * {@link Retriable} names, no new attempt later than {@link ClientSettings#requestTimeout()} after the
 * first) through the node's {@link CircuitBreaker}: while a node's breaker is open a first attempt fails
 * fast with {@link NodeUnreachableException}, and a request already retrying waits for the breaker (it
 * may still reach the node when the breaker lets probes through, within its deadline).
 *
 * <p>Attempts after the first run on one daemon thread of the client (they may block while connecting,
 * which must not happen on the connection's event loop); the thread ends when idle, so a closed client
 * leaves nothing behind and a late retry is never refused (it fails on the closed client instead).
 */
final class Retries {

    private static final int WINDOW = 20;
    private static final int MINIMUM_CALLS = 10;
    private static final int HALF_OPEN_PROBES = 3;

    private final ClientSettings config;
    private final Retry retry;
    private final CircuitBreakerConfig breakerConfig;
    private final ScheduledThreadPoolExecutor scheduler;

    Retries(ClientSettings config) {
        this.config = config;
        this.retry = Retry.of("sluice-client", RetryConfig.custom()
                .maxAttempts(config.retryAttempts())
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(config.retryInitialBackoff(), 2.0, 0.5,
                        ClientSettings.MAX_BACKOFF))
                .retryOnException(Retriable::isRetriable)
                .build());
        this.breakerConfig = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(WINDOW)
                .minimumNumberOfCalls(MINIMUM_CALLS)
                .failureRateThreshold(config.circuitBreakerFailureRate())
                .waitDurationInOpenState(config.circuitBreakerWaitInOpenState())
                .permittedNumberOfCallsInHalfOpenState(HALF_OPEN_PROBES)
                .recordException(Retriable::isNodeFailure)
                .build();
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-client-retry");
            t.setDaemon(true);
            return t;
        });
        scheduler.setKeepAliveTime(1, TimeUnit.SECONDS);
        scheduler.allowCoreThreadTimeOut(true);
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** A new node's breaker. */
    CircuitBreaker breaker(String nodeId) {
        return CircuitBreaker.of(nodeId, breakerConfig);
    }

    /**
     * Runs a request's attempts until one succeeds, one fails in a way that is not retriable, the
     * attempts run out or the deadline passes. Never throws; the future always completes.
     *
     * @param node    names the node in errors ("node N at host:port")
     * @param attempt sends the request once (on a connection it opens if needed); must not throw
     */
    <T> CompletableFuture<T> call(CircuitBreaker breaker, String node, Supplier<CompletableFuture<T>> attempt) {
        Attempts attempts = new Attempts(node, System.nanoTime() + config.requestTimeout().toNanos());
        CompletableFuture<T> result = new CompletableFuture<>();
        retry.executeCompletionStage(scheduler, () -> attempts.next(breaker, attempt)).whenComplete((value, error) -> {
            if (error == null) {
                result.complete(value);
            } else {
                Throwable cause = Retriable.unwrap(error);
                result.completeExceptionally(Retriable.isRetriable(cause) ? attempts.giveUp(cause) : cause);
            }
        });
        return result;
    }

    /** One request's attempts so far; its attempts run one after the other. */
    private final class Attempts {
        private final String node;
        private final long deadline;
        private final long start = System.nanoTime();
        private volatile int count;
        private volatile Throwable first;

        Attempts(String node, long deadline) {
            this.node = node;
            this.deadline = deadline;
        }

        <T> CompletableFuture<T> next(CircuitBreaker breaker, Supplier<CompletableFuture<T>> attempt) {
            int n = ++count;
            if (n > 1 && System.nanoTime() - deadline > 0) {
                return CompletableFuture.failedFuture(giveUp(null));
            }
            if (!breaker.tryAcquirePermission()) {
                String open = "the node " + node + " is unreachable: its circuit breaker is open (at least "
                        + config.circuitBreakerFailureRate() + "% of its last calls failed;"
                        + " ClientConfig.circuitBreakerFailureRate), so calls fail fast for "
                        + config.circuitBreakerWaitInOpenState() + " (ClientConfig.circuitBreakerWaitInOpenState)";
                // A request already retrying waits for the breaker to let probes through; a new one fails fast.
                return CompletableFuture.failedFuture(n == 1 ? new NodeUnreachableException(open)
                        : new ConnectionLostException(open));
            }
            long began = System.nanoTime();
            CompletableFuture<T> sent = attempt.get();
            return sent.whenComplete((value, error) -> {
                long took = System.nanoTime() - began;
                if (error == null) {
                    breaker.onSuccess(took, TimeUnit.NANOSECONDS);
                } else {
                    Throwable cause = Retriable.unwrap(error);
                    breaker.onError(took, TimeUnit.NANOSECONDS, cause);
                    if (first == null) {
                        first = cause;
                    }
                }
            });
        }

        /** The error when retrying ends without an answer: names the node, the attempts, the time, the causes. */
        NodeUnreachableException giveUp(Throwable last) {
            Throwable firstError = first;
            String lastMessage = last == null ? null : last.getMessage();
            NodeUnreachableException e = new NodeUnreachableException("the node " + node + " is unreachable: "
                    + count + " attempt(s) in " + Duration.ofNanos(System.nanoTime() - start).toMillis()
                    + " ms failed (ClientConfig.retryAttempts " + config.retryAttempts() + ", requestTimeout "
                    + config.requestTimeout() + ")"
                    + (firstError == null ? "" : "; first: " + firstError.getMessage())
                    + (lastMessage == null || firstError == last ? "" : "; last: " + lastMessage));
            if (firstError != null) {
                e.addSuppressed(firstError);
            }
            if (last != null && last != firstError) {
                e.addSuppressed(last);
            }
            return e;
        }
    }
}
