package io.portico.proxy;

import io.portico.config.LocationConfig;
import io.portico.config.TargetConfig;
import io.portico.upstream.UpstreamPool;

/** Everything one proxy location needs, resolved once at startup. */
record ProxySettings(LocationConfig location, TargetConfig.Proxy target, UpstreamPool pool, long maxBodySize) {

    int retries() {
        return pool.config().retries();
    }
}
