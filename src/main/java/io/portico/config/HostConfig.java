package io.portico.config;

import java.util.List;

/**
 * A virtual host: the requests whose {@code Host} (or, over TLS, SNI) is one of {@code names} use its own
 * {@code locations}; every other request uses the top-level ones (the default host).
 *
 * @param names lower-case host names without a port, exact ({@code example.com}) or a wildcard of one or more
 *     labels ({@code *.example.com}, which matches {@code a.example.com} and {@code a.b.example.com} but not
 *     {@code example.com}, as nginx's {@code server_name})
 * @param listen the listeners this host answers on (nginx's {@code listen} in a {@code server} block); empty: all
 * @param isDefault it also answers, on its listeners, the requests no host's name matches (nginx's
 *     {@code default_server}), instead of the top-level locations
 */
public record HostConfig(List<String> names, List<LocationConfig> locations, List<ListenAddress> listen,
        boolean isDefault) {

    public HostConfig(List<String> names, List<LocationConfig> locations) {
        this(names, locations, List.of(), false);
    }

    /** Whether this host answers on the listener bound to {@code address}. */
    public boolean on(ListenAddress address) {
        return listen.isEmpty() || listen.contains(address);
    }
}
