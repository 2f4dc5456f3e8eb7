package io.portico.config;

/**
 * What an upstream's servers speak, from the scheme of their addresses: {@code http://} (or none), {@code uwsgi://}
 * or {@code fastcgi://}. One per upstream: a pool mixing them would send a request in the protocol of whichever
 * server the balancer picked.
 */
public enum UpstreamProtocol {
    HTTP("http"),
    UWSGI("uwsgi"),
    FASTCGI("fastcgi");

    /** The scheme as written in an address, also how logs and metrics name the protocol. */
    public final String scheme;

    UpstreamProtocol(String scheme) {
        this.scheme = scheme;
    }

    /**
     * Whether a connection may serve more than one request. uWSGI closes every connection after its response (its
     * protocol has no keep-alive), so a uwsgi connection is never pooled; FastCGI asks for keep-alive with
     * {@code FCGI_KEEP_CONN}.
     */
    public boolean keepsAlive() {
        return this != UWSGI;
    }
}
