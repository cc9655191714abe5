package io.sluice.samples.load;

import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;

/**
 * Connects to a remote node, or the members of a cluster (addresses separated by commas), for each mode (a fresh
 * client; the mode's cache is new on the node).
 * The node's own config decides its page size and region, so those arguments are not used.
 */
final class RemoteNodeLauncher implements NodeLauncher {

    private final String address;

    RemoteNodeLauncher(String address) {
        this.address = address;
    }

    @Override
    public Sluice start(Integer pageSize, long regionMaxBytes) {
        return SluiceClient.connect(ClientConfig.addresses(java.util.Arrays.stream(address.split(","))
                .map(String::trim).toArray(String[]::new)));
    }

    @Override
    public String toString() {
        return "remote node at " + address;
    }
}
