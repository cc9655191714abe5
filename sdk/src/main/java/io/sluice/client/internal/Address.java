package io.sluice.client.internal;

import java.util.Objects;

/** A node's address, {@code host:port}. */
public record Address(String host, int port) {

    /** @throws IllegalArgumentException naming the address if it is not {@code host:port} with a port from 1 to 65535 */
    public static Address parse(String address) {
        Objects.requireNonNull(address, "address");
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("node address '" + address + "' is not host:port (ClientConfig.addresses)");
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("node address '" + address + "' has no port from 1 to 65535"
                    + " (ClientConfig.addresses)");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new Address(host, port);
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
