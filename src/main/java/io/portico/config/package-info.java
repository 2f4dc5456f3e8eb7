/**
 * The configuration: HOCON read over {@code reference.conf} (every key, its default and a comment) into immutable
 * records, with every problem collected and reported as {@code file:line: key: what (expected: ...)}. Also the value
 * rules that loading and serving share, so both apply one definition: {@link io.portico.config.RequestPath} (the one
 * normalized request path), {@link io.portico.config.TextTemplate} (nginx-style variables), {@link
 * io.portico.config.Cidr}, and the PEM certificates and keys of TLS listeners, read and checked at load. Depends on
 * no other Portico package and on no Netty class.
 *
 * <p>Threading: loading runs once on the calling thread; the records it returns are immutable and shared freely.
 */
package io.portico.config;
