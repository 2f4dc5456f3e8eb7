package io.portico.config;

import java.util.List;

/**
 * A virtual host: the requests whose {@code Host} (or, over TLS, SNI) is one of {@code names} use its own
 * {@code locations}; every other request uses the top-level ones (the default host).
 *
 * @param names lower-case host names without a port, exact ({@code example.com}) or a wildcard of one or more
 *     labels ({@code *.example.com}, which matches {@code a.example.com} and {@code a.b.example.com} but not
 *     {@code example.com}, as nginx's {@code server_name})
 */
public record HostConfig(List<String> names, List<LocationConfig> locations) {}
