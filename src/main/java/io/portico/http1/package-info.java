/**
 * What the HTTP/1 decoders of both legs share: the client's request decoder ({@code server.ServerCodec}) and the
 * upstream's response decoders ({@code upstream.UpstreamCodec}, and {@code upstream.FastCgiDecoder} for a FastCGI
 * response's CGI head) keep a decoded head's fields in a {@link io.portico.http1.FieldList} (arrival order, one
 * array, Netty's header semantics) and share the instances of common field names through
 * {@link io.portico.http1.FieldNames}. The responses Portico builds itself keep their fields in a {@code FieldList}
 * as well ({@code exchange.ResponseHeaders}).
 *
 * <p>Threading: {@code FieldNames} is immutable and shared; a {@code FieldList} belongs to the message it was decoded
 * or built for, on that message's event loop.
 */
package io.portico.http1;
