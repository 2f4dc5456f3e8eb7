package io.portico.proxy;

import io.portico.config.LocationConfig;
import io.portico.config.TargetConfig;
import io.portico.upstream.UpstreamPool;
import java.util.concurrent.Executor;

/**
 * Everything one proxy location needs, resolved once at startup.
 *
 * @param files where temp-file work runs, never on an event loop
 * @param owned the request fields the location writes itself (computed from {@code target})
 */
record ProxySettings(LocationConfig location, TargetConfig.Proxy target, UpstreamPool pool,
        long maxBodySize, Executor files, OwnedFields owned) {

    ProxySettings(LocationConfig location, TargetConfig.Proxy target, UpstreamPool pool, long maxBodySize,
            Executor files) {
        this(location, target, pool, maxBodySize, files, OwnedFields.of(target));
    }

    int retries() {
        return pool.config().retries();
    }
}
