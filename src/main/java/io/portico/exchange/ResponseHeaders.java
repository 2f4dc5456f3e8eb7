package io.portico.exchange;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.portico.http1.FieldList;

/**
 * Header factories for the responses Portico builds itself (static files, errors, {@code return}, rate-limit
 * refusals). Their values come from Portico, not from a client, so validating them again is wasted work; they
 * never carry trailers, so they share the empty instance instead of allocating a trailer table per response; and
 * their fields are a {@link FieldList}: a handful of fields, written out in order once, for which Netty's hash
 * table and its linked entry per field (with the Server and Date fields the server adds, about 330 bytes of a
 * static 1 KiB response's 1,300) cost more than a scan of one short array.
 */
public final class ResponseHeaders {
    public static final HttpHeadersFactory HEADERS =
            FieldList.factory(DefaultHttpHeadersFactory.headersFactory().withValidation(false));

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
