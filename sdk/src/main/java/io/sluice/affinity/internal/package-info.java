/** Internal: which partition a key is in and which node owns a partition; shared by client and node. */
package io.sluice.affinity.internal;
