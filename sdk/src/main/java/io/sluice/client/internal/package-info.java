/**
 * Internal: the remote client behind {@link io.sluice.client.SluiceClient}.
 * <ul>
 *   <li>{@link io.sluice.client.internal.RemoteSluice}: the {@link io.sluice.Sluice} over TCP; its caches
 *       ({@link io.sluice.client.internal.RemoteCache}) and streamers (over
 *       {@link io.sluice.client.internal.ClientTransport});</li>
 *   <li>{@link io.sluice.client.internal.Nodes}: one connection per node
 *       ({@link io.sluice.client.internal.NodeConnection}: handshake, pipelined requests matched by id),
 *       reopened on demand; {@link io.sluice.client.internal.ClientTls} when TLS is on;</li>
 *   <li>{@link io.sluice.client.internal.Routing}: which node owns each partition (rendezvous over the nodes when
 *       standalone, a cluster's map otherwise, refreshed when a node refuses); {@link
 *       io.sluice.client.internal.RoutedCall}: an operation's items sent to their owners, refused ones again;</li>
 *   <li>{@link io.sluice.client.internal.RemoteIndexes}: index queries fanned out to the nodes and merged by index
 *       key (a cache's index operations reach it through {@link io.sluice.client.internal.RemoteIndexed});</li>
 *   <li>{@link io.sluice.client.internal.Retries} and {@link io.sluice.client.internal.Retriable}: which
 *       failures are retried, with what backoff, and which count against a node's circuit breaker.</li>
 * </ul>
 * May change without notice.
 */
package io.sluice.client.internal;
