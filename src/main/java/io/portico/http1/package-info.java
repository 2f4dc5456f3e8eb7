/**
 * HTTP/1 heads: the client's request decoder ({@link io.portico.http1.RequestDecoder}, with
 * {@link io.portico.http1.HeadParser} reading a whole head, {@link io.portico.http1.ChunkedBody} a chunked body and
 * {@link io.portico.http1.SectionScanner} bounding a section of field lines as it arrives), and what it shares with
 * the upstream's response decoders ({@code upstream.UpstreamCodec}, and {@code upstream.FastCgiDecoder} for a
 * FastCGI response's CGI head): a decoded head's fields in a {@link io.portico.http1.FieldList} (arrival order, one
 * array, Netty's header semantics) and the instances of common field names in {@link io.portico.http1.FieldNames}.
 * The responses Portico builds itself keep their fields in a {@code FieldList} as well
 * ({@code exchange.ResponseHeaders}).
 *
 * <p>Threading: {@code FieldNames} and the syntax tables are immutable and shared; a decoder and its parsers belong to
 * one client connection, on its event loop; a {@code FieldList} belongs to the message it was decoded or built for,
 * on that message's event loop.
 */
package io.portico.http1;
