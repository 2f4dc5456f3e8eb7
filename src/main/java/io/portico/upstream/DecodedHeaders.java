package io.portico.upstream;

import io.netty.handler.codec.DefaultHeaders;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import java.util.List;

/**
 * The headers of a client's HTTP/1.1 request head as the server's codec makes them: Netty's, validated as the
 * factory they come from validates them, with two costs per head less. (An upstream's response has its own,
 * smaller store: {@link FieldList}.)
 * <ul>
 *   <li>A table of 8 slots instead of 16 (32 bytes): a head has a handful to a score of fields, and more only
 *       make the slots' chains longer; the fields keep their order (a list through the entries).</li>
 *   <li>{@link #getAll} of a field the request does not have is the shared empty list, not a view over an empty
 *       one (24 bytes): Netty's decoder asks for every head's Content-Length values, and most requests have
 *       none.</li>
 * </ul>
 */
public final class DecodedHeaders extends DefaultHttpHeaders {
    private DecodedHeaders(DefaultHeaders.NameValidator<CharSequence> names,
            DefaultHeaders.ValueValidator<CharSequence> values, int tableSize) {
        super(names, values, tableSize);
    }

    /** Makes these headers with the validators of {@code validating} (the decoder config's factory). */
    public static HttpHeadersFactory factory(DefaultHttpHeadersFactory validating) {
        return new HttpHeadersFactory() {
            @Override
            public HttpHeaders newHeaders() {
                return new DecodedHeaders(validating.getNameValidator(), validating.getValueValidator(), 8);
            }

            @Override
            public HttpHeaders newEmptyHeaders() {
                return new DecodedHeaders(validating.getNameValidator(), validating.getValueValidator(), 2);
            }
        };
    }

    @Override
    public List<String> getAll(CharSequence name) {
        return contains(name) ? super.getAll(name) : List.of();
    }
}
