/**
 * What the server tells the outside about itself: the access log, and the {@code metrics = prometheus} location
 * that renders the rate-limit, limit-conn, connection and upstream counters.
 *
 * <p>Threading: the access log hands lines from the event loops to its own appender thread; the metrics responder
 * runs on the client channel's event loop and only reads counters that are safe to read from any thread.
 */
package io.portico.metrics;
