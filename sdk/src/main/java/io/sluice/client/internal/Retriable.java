package io.sluice.client.internal;

import io.sluice.NodeUnreachableException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * Which failures of a request the client retries, and which count against a node's circuit breaker.
 *
 * <table>
 *   <caption>Failures of a request</caption>
 *   <tr><th>failure</th><th>retried</th><th>counts against the node</th></tr>
 *   <tr><td>connection refused, lost before the answer, lost during the handshake, the node at its
 *       connection limit ({@link ConnectionLostException})</td><td>yes</td><td>yes</td></tr>
 *   <tr><td>node stopping or busy ({@link RejectedExecutionException}, error kind NODE_STOPPING)</td>
 *       <td>yes</td><td>yes</td></tr>
 *   <tr><td>no answer within the request timeout, no handshake answer within the connect timeout,
 *       breaker open on a first attempt (plain {@link NodeUnreachableException})</td><td>no: the time is
 *       spent, or the node is known to be down</td><td>yes</td></tr>
 *   <tr><td>anything the node answered (unknown cache, bad argument, data region full, ...), a refused
 *       handshake (version, token, TLS required), TLS failures, a closed client</td><td>no</td><td>no</td></tr>
 * </table>
 */
final class Retriable {

    private Retriable() {
    }

    /** Whether a request that failed so may be sent again. */
    static boolean isRetriable(Throwable error) {
        Throwable t = unwrap(error);
        return t instanceof ConnectionLostException || t instanceof RejectedExecutionException;
    }

    /** Whether the failure says something about the node's health (its circuit breaker records it). */
    static boolean isNodeFailure(Throwable error) {
        Throwable t = unwrap(error);
        return t instanceof NodeUnreachableException || t instanceof RejectedExecutionException;
    }

    static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
