package io.sluice.cluster.internal;

import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.protocol.internal.ClusterMap;
import org.apache.helix.api.listeners.RoutingTableChangeListener;
import org.apache.helix.model.ExternalView;
import org.apache.helix.model.InstanceConfig;
import org.apache.helix.model.LiveInstance;
import org.apache.helix.spectator.RoutingTableSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The node's spectator view: each routing table snapshot Helix's {@code RoutingTableProvider} delivers (after an
 * external view, live instance or instance config change) becomes a {@link ClusterMap}: members = the live
 * instances with the host and port of their InstanceConfig, sorted by id; a partition's owner = its MASTER in the
 * external view if that is a member; its backups = its members in SLAVE state in the external view, in rendezvous
 * order ({@link RendezvousAffinity#ranked}); version = the external view znode's version (-1 before it exists).
 * Listeners hear of a map only when it differs from the last one, on the provider's thread.
 */
final class MapView implements RoutingTableChangeListener {

    private static final Logger LOG = LoggerFactory.getLogger(MapView.class);

    private final int partitions;
    private final List<Consumer<ClusterMap>> listeners = new CopyOnWriteArrayList<>();
    private volatile ClusterMap current;

    MapView(int partitions) {
        this.partitions = partitions;
        int[] none = new int[partitions];
        Arrays.fill(none, ClusterMap.NO_OWNER);
        this.current = new ClusterMap(-1, List.of(), none);
    }

    ClusterMap current() {
        return current;
    }

    void addListener(Consumer<ClusterMap> listener) {
        listeners.add(listener);
    }

    @Override
    public void onRoutingTableChange(RoutingTableSnapshot snapshot, Object context) {
        update(snapshot);
    }

    /** Builds the map of the snapshot and tells the listeners if it changed. */
    synchronized void update(RoutingTableSnapshot snapshot) {
        ClusterMap next = build(snapshot);
        if (next.equals(current)) {
            return;
        }
        current = next;
        LOG.debug("cluster map {}", next);
        for (Consumer<ClusterMap> listener : listeners) {
            try {
                listener.accept(next);
            } catch (RuntimeException e) {
                LOG.warn("a cluster map listener failed on map version {}", next.version(), e);
            }
        }
    }

    ClusterMap build(RoutingTableSnapshot snapshot) {
        Map<String, InstanceConfig> configs = new HashMap<>();
        for (InstanceConfig config : snapshot.getInstanceConfigs()) {
            configs.put(config.getInstanceName(), config);
        }
        List<String> ids = new ArrayList<>();
        for (LiveInstance live : snapshot.getLiveInstances()) {
            ids.add(live.getInstanceName());
        }
        ids.sort(null);
        List<ClusterMap.Member> members = new ArrayList<>(ids.size());
        Map<String, Integer> index = new HashMap<>();
        for (String id : ids) {
            ClusterMap.Member member = member(id, configs.get(id));
            if (member != null) {
                index.put(id, members.size());
                members.add(member);
            }
        }
        ExternalView view = null;
        for (ExternalView v : snapshot.getExternalViews()) {
            if (ClusterPaths.RESOURCE.equals(v.getResourceName())) {
                view = v;
            }
        }
        int[] owners = new int[partitions];
        Arrays.fill(owners, ClusterMap.NO_OWNER);
        if (view == null) {
            return new ClusterMap(-1, members, owners);
        }
        int[][] backups = new int[partitions][];
        List<String> slaves = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            Map<String, String> states = view.getStateMap(ClusterPaths.partitionName(p));
            if (states == null) {
                continue;
            }
            slaves.clear();
            for (Map.Entry<String, String> e : states.entrySet()) {
                Integer i = index.get(e.getKey());
                if (i == null) {
                    continue;
                }
                if ("MASTER".equals(e.getValue())) {
                    owners[p] = i;
                } else if ("SLAVE".equals(e.getValue())) {
                    slaves.add(e.getKey());
                }
            }
            backups[p] = backupIndexes(p, slaves, index);
        }
        return new ClusterMap(view.getStat().getVersion(), members, owners, backups);
    }

    /** The members' indexes of a partition's SLAVEs, in rendezvous order; null if none. */
    static int[] backupIndexes(int partition, List<String> slaves, Map<String, Integer> index) {
        if (slaves.isEmpty()) {
            return null;
        }
        List<String> ranked = slaves.size() == 1 ? slaves : RendezvousAffinity.ranked(partition, slaves);
        int[] indexes = new int[ranked.size()];
        for (int i = 0; i < indexes.length; i++) {
            indexes[i] = index.get(ranked.get(i));
        }
        return indexes;
    }

    /** The member a live instance is, or null if its config names no address (not a Sluice node). */
    private static ClusterMap.Member member(String id, InstanceConfig config) {
        if (config == null || config.getHostName() == null || config.getPort() == null) {
            return null;
        }
        try {
            return new ClusterMap.Member(id, config.getHostName(), Integer.parseInt(config.getPort()));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
