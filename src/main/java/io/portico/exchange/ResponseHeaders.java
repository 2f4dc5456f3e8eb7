package io.portico.exchange;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;

/**
 * Header factories for the responses Portico builds itself. Their values come from Portico, not from a client,
 * so validating them again is wasted work; and they never carry trailers, so they share the empty instance
 * instead of allocating a trailer table per response.
 */
public final class ResponseHeaders {
    public static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);

    public static final HttpHeadersFactory NO_TRAILERS = new HttpHeadersFactory() {
        @Override
        public HttpHeaders newHeaders() {
            return EmptyHttpHeaders.INSTANCE;
        }

        @Override
        public HttpHeaders newEmptyHeaders() {
            return EmptyHttpHeaders.INSTANCE;
        }
    };

    private ResponseHeaders() {}
}
