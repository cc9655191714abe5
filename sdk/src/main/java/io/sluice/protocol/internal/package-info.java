/** Internal: what moves between streamer and node. May change without notice. */
package io.sluice.protocol.internal;
