package io.portico.proxy;

import io.netty.handler.codec.http.HttpMethod;
import java.util.Set;

/** RFC 9110 idempotent methods: only these are retried once bytes may have reached an upstream. */
final class Methods {
    private static final Set<HttpMethod> IDEMPOTENT = Set.of(
            HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS, HttpMethod.TRACE, HttpMethod.PUT, HttpMethod.DELETE);

    private Methods() {}

    static boolean idempotent(HttpMethod method) {
        return IDEMPOTENT.contains(method);
    }
}
