package io.sluice.cluster.internal;

/**
 * The znodes of a cluster: Helix's own layout (read-only for Sluice except through Helix's admin API) and
 * Sluice's data under Helix's property store, written as raw bytes:
 * <pre>
 * /{cluster}/PROPERTYSTORE/sluice/caches/{encoded name}   a cache's description (the node's encoding)
 * /{cluster}/PROPERTYSTORE/sluice/types                   the binary type metadata (exportTypes form), CAS on version
 * /{cluster}/PROPERTYSTORE/sluice/owners/{partition}      the partition's epoch and last owner (ZkOwnerLog's layout)
 * </pre>
 */
final class ClusterPaths {

    /** The one Helix resource of a cluster; its partitions are {@code sluice_0 .. sluice_{P-1}}. */
    static final String RESOURCE = "sluice";
    static final String STATE_MODEL = "MasterSlave";

    private final String cluster;

    ClusterPaths(String cluster) {
        this.cluster = cluster;
    }

    /** Everything Sluice keeps itself (raw bytes: {@link ZkAccess} serializes below it with no ZNRecord). */
    String sluiceRoot() {
        return "/" + cluster + "/PROPERTYSTORE/sluice";
    }

    String caches() {
        return sluiceRoot() + "/caches";
    }

    String types() {
        return sluiceRoot() + "/types";
    }

    String owners() {
        return sluiceRoot() + "/owners";
    }

    String owner(int partition) {
        return owners() + "/" + partition;
    }

    String liveInstance(String nodeId) {
        return "/" + cluster + "/LIVEINSTANCES/" + nodeId;
    }

    /** The Helix partition name of a partition number. */
    static String partitionName(int partition) {
        return RESOURCE + "_" + partition;
    }

    /**
     * The partition number of a Helix partition name ({@code sluice_N}).
     *
     * @throws IllegalArgumentException if the name is not one of the resource's partitions
     */
    static int partitionNumber(String partitionName) {
        int cut = partitionName.lastIndexOf('_');
        if (cut < 0 || !partitionName.regionMatches(0, RESOURCE, 0, cut) || cut != RESOURCE.length()) {
            throw new IllegalArgumentException("not a partition of resource " + RESOURCE + ": " + partitionName);
        }
        return Integer.parseInt(partitionName, cut + 1, partitionName.length(), 10);
    }
}
