package io.sluice.streamer.internal;

import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.protocol.internal.StreamerTransport;

import java.util.List;

/**
 * Partition to owner node: the transport's table when it routes by a cluster's map (an array per map), else
 * computed once per topology: the node list is compared with the cached one on each lookup (a short list compare
 * per batch), and the whole table is rebuilt when it changes.
 */
final class PartitionOwners {

    private final StreamerTransport transport;
    private final int partitions;
    private volatile Table table;

    PartitionOwners(StreamerTransport transport, int partitions) {
        this.transport = transport;
        this.partitions = partitions;
    }

    /**
     * The node owning the partition in the current topology.
     *
     * @throws IllegalArgumentException if the topology has no nodes
     */
    String owner(int partition) {
        String[] mapped = transport.partitionOwners(partitions);
        if (mapped != null) {
            return mapped[partition]; // a cluster's map
        }
        List<String> nodes = transport.nodeIds();
        Table current = table;
        if (nodes.isEmpty()) {
            return RendezvousAffinity.owner(partition, nodes); // throws, naming the partition
        }
        if (current == null || !current.nodes.equals(nodes)) {
            current = new Table(List.copyOf(nodes), partitions);
            table = current;
        }
        return current.owners[partition];
    }

    private static final class Table {
        final List<String> nodes;
        final String[] owners;

        Table(List<String> nodes, int partitions) {
            this.nodes = nodes;
            this.owners = new String[partitions];
            for (int p = 0; p < partitions; p++) {
                owners[p] = RendezvousAffinity.owner(p, nodes);
            }
        }
    }
}
