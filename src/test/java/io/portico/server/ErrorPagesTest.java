package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.testing.LeakReportExtension;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

class ErrorPagesTest {

    @Test
    void aPageWithACustomReasonPhraseIsFreedWithItsResponse() {
        for (int i = 0; i < 20; i++) {
            FullHttpResponse r = ErrorPages.build(new HttpResponseStatus(429, "Slow Down " + i), null, null, false);
            assertThat(r.content().toString(StandardCharsets.UTF_8)).contains("429 Slow Down " + i);
            r.release(); // as the encoder does once it has copied the body
        }
        ExtensionContext context = (ExtensionContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ExtensionContext.class},
                (proxy, method, args) -> method.getName().equals("getDisplayName") ? "custom reasons" : null);
        assertThatCode(() -> new LeakReportExtension().afterAll(context)).doesNotThrowAnyException();
    }

    @Test
    void aStandardPageIsBuiltOnceAndSharedUnharmedByReleases() {
        FullHttpResponse first = ErrorPages.build(HttpResponseStatus.TOO_MANY_REQUESTS, null, null, false);
        String body = first.content().toString(StandardCharsets.UTF_8);
        first.release();
        FullHttpResponse second = ErrorPages.build(HttpResponseStatus.TOO_MANY_REQUESTS, null, null, false);
        assertThat(second.content().toString(StandardCharsets.UTF_8)).isEqualTo(body).contains("429 Too Many Requests");
        second.release();
    }
}
