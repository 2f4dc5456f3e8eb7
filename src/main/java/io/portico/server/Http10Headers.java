package io.portico.server;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The headers of an HTTP/1.0 request while it is decoded. Netty takes the first of several Content-Length fields
 * on HTTP/1.0 and replaces them all with it, so a request with {@code Content-Length: 1} and
 * {@code Content-Length: 2} reached the rest of the pipeline with one length and passed. Netty replaces them
 * with a {@code set}; refusing that set while more than one field is present makes the decoder fail the request
 * (400 and close), as on HTTP/1.1. Only 1.0 requests get this class: 1.1 ones keep Netty's own headers.
 */
final class Http10Headers extends DefaultHttpHeaders {
    @Override
    public HttpHeaders set(CharSequence name, Object value) {
        if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name) && getAll(name).size() > 1) {
            throw new ServerCodec.AmbiguousFramingException("more than one Content-Length on HTTP/1.0");
        }
        return super.set(name, value);
    }
}
