package io.portico.upstream;

/**
 * What the proxy tells the metrics about one upstream server's tries. The metrics side caches everything it
 * records into when it is bound (at start-up), so each call is a counter increment or a histogram record.
 * Called on event loops, concurrently for one server.
 */
public interface ServerMeters {
    /** Records nothing: a server no metrics are bound to (tests, tools). */
    ServerMeters NONE = new ServerMeters() {};

    /** A try on this server began (one per server tried: a retry on another server is another try). */
    default void tried() {}

    /** A new connection was established, {@code nanos} after the try began (a pooled one is not counted). */
    default void connected(long nanos) {}

    /** A try ended (response complete or failed), {@code nanos} after it began: nginx's upstream_response_time. */
    default void responded(long nanos) {}

    /** A try failed; {@code cause} is one of a few fixed words (connect_error, read_timeout, ...). */
    default void failed(String cause) {}

    /** A failure of this server made the request try again (on a fresh connection or on the next server). */
    default void retried(String cause) {}
}
