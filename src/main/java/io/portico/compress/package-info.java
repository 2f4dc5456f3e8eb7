/**
 * On-the-fly compression of responses: one output stage right above the client codec, so whatever a location
 * sends (a static file, a proxied or cached upstream response, a {@code return}) is compressed the same way.
 * It negotiates a coding from the request's Accept-Encoding, rewrites the response head (Content-Encoding, Vary,
 * a weak ETag, no Content-Length) and streams the body through one of Netty's encoders (JDK gzip, zstd-jni,
 * brotli4j).
 *
 * <p>Threading: a {@link io.portico.compress.CompressionHandler} belongs to one connection (or HTTP/2 stream) and
 * runs on its event loop; the encoders it creates are its own and are released when the response ends or the
 * channel closes. {@link io.portico.compress.ResponseCompression} is built once per server and shared.
 */
package io.portico.compress;
