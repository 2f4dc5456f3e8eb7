/**
 * TLS termination for client connections: a listener's certificates turned into SSL contexts once at start, the SNI
 * choice of one per connection, and the refusal of plain HTTP sent to a TLS port. Depends on {@code config} only.
 *
 * <p>Threading: {@link io.portico.tls.ServerTls} is immutable and shared by every event loop; the handlers it makes
 * are per connection and live on that connection's loop.
 */
package io.portico.tls;
