/**
 * The remote client: {@link io.sluice.client.SluiceClient#connect(io.sluice.client.ClientConfig)} gives
 * the same {@link io.sluice.Sluice} interface as an embedded node, over TCP. The protocol is in
 * {@code docs/protocol.md}.
 */
package io.sluice.client;
