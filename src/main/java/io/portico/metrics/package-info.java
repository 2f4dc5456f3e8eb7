/**
 * What the server tells the outside about itself: the access log; {@link io.portico.metrics.PorticoMetrics}, one
 * Prometheus registry per server, with the meters the request path feeds ({@link
 * io.portico.metrics.LocationMeters}, the upstream servers' {@code ServerMeters}) and the families read at scrape
 * time from the modules' own counters ({@link io.portico.metrics.MetricSources}); and the {@code metrics =
 * prometheus}, {@code status = page} and {@code health = true} responders.
 *
 * <p>Threading: the access log hands lines from the event loops to its own appender thread. Meters are recorded
 * on the event loops (increments and histogram records, no lock, no allocation once a label set has been seen).
 * Scrapes and status pages are rendered on the {@code portico-metrics} thread and written back from the client's
 * event loop; the health responder reads one volatile flag on the loop.
 */
package io.portico.metrics;
