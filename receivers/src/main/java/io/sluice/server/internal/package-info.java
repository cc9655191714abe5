/**
 * Internal: the node's network side, in the order a connection meets it:
 * <ul>
 *   <li>{@link io.sluice.server.internal.SluiceServer}: the listening socket and each connection's pipeline
 *       (TLS when configured, {@link io.sluice.server.internal.ReceivedBytes},
 *       {@link io.sluice.server.internal.FrameReader} with its {@link io.sluice.server.internal.FramePool});</li>
 *   <li>{@link io.sluice.server.internal.HandshakeHandler}: the first frame (version, token), then the
 *       connection's {@link io.sluice.server.internal.RequestHandler};</li>
 *   <li>{@link io.sluice.server.internal.RequestHandler}: streamed batches to the node's apply threads,
 *       every other operation to {@link io.sluice.server.internal.NodeOps};</li>
 *   <li>the node as a process: {@link io.sluice.server.internal.NodeMain} ({@code sluice-node.jar}), its
 *       file ({@link io.sluice.server.internal.NodeFileConfig}, its {@code cluster} object
 *       {@link io.sluice.server.internal.ClusterFileConfig}), its cluster membership
 *       ({@link io.sluice.server.internal.ClusterJoin}), settings ({@link io.sluice.server.internal.ServerConfig},
 *       {@link io.sluice.server.internal.TlsConfig}) and metrics export
 *       ({@link io.sluice.server.internal.MetricsExport}); {@link io.sluice.server.internal.NodeProcess} starts one
 *       as a child process for tests and tools.</li>
 * </ul>
 * The wire format is {@code docs/protocol.md}. May change without notice.
 */
package io.sluice.server.internal;
