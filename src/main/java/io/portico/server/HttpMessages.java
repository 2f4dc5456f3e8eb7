package io.portico.server;

import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;

/** What the outbound handlers agree on: which written message ends a response. */
final class HttpMessages {
    private HttpMessages() {}

    /** A LastHttpContent that is not an interim (1xx) response ends the response to the current request. */
    static boolean endsResponse(Object msg) {
        if (!(msg instanceof LastHttpContent)) {
            return false;
        }
        return !(msg instanceof HttpResponse r && r.status().codeClass() == HttpStatusClass.INFORMATIONAL);
    }

    static boolean isInterim(Object msg) {
        return msg instanceof HttpResponse r && r.status().codeClass() == HttpStatusClass.INFORMATIONAL;
    }
}
