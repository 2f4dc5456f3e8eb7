package io.portico.proxy;

import static io.portico.proxy.Failover.Next.GIVE_UP;
import static io.portico.proxy.Failover.Next.NEXT_SERVER;
import static io.portico.proxy.Failover.Next.SAME_SERVER_FRESH;
import static io.portico.proxy.UpstreamFailure.Kind.CLOSED;
import static io.portico.proxy.UpstreamFailure.Kind.CONNECT_ERROR;
import static io.portico.proxy.UpstreamFailure.Kind.CONNECT_TIMEOUT;
import static io.portico.proxy.UpstreamFailure.Kind.MALFORMED;
import static io.portico.proxy.UpstreamFailure.Kind.READ_TIMEOUT;
import static io.portico.proxy.UpstreamFailure.Kind.SEND_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class FailoverTest {

    private static Failover afterOneTry(int retries, boolean idempotent) {
        Failover f = new Failover(retries, idempotent);
        f.tried();
        return f;
    }

    @Test
    void nothingSentGoesToTheNextServerForAnyMethodWithinRetries() {
        for (UpstreamFailure.Kind k : new UpstreamFailure.Kind[] {CONNECT_ERROR, CONNECT_TIMEOUT}) {
            assertThat(afterOneTry(1, false).after(k, false, false, false)).as(k.name()).isEqualTo(NEXT_SERVER);
            assertThat(afterOneTry(0, true).after(k, false, false, true)).as(k.name()).isEqualTo(GIVE_UP);
        }
        Failover f = afterOneTry(1, true);
        assertThat(f.after(CONNECT_TIMEOUT, false, false, true)).isEqualTo(NEXT_SERVER);
        f.tried();
        assertThat(f.after(CONNECT_TIMEOUT, false, false, true)).isEqualTo(GIVE_UP);
    }

    @Test
    void afterTheRequestWentOutOnlyAReplayableIdempotentRequestGoesOnWithinRetries() {
        for (UpstreamFailure.Kind k : new UpstreamFailure.Kind[] {CLOSED, READ_TIMEOUT, SEND_TIMEOUT}) {
            assertThat(afterOneTry(1, true).after(k, true, false, true)).as(k.name()).isEqualTo(NEXT_SERVER);
            assertThat(afterOneTry(1, false).after(k, true, false, true)).as(k.name()).isEqualTo(GIVE_UP);
            assertThat(afterOneTry(1, true).after(k, true, false, false)).as(k.name() + " streamed body")
                    .isEqualTo(GIVE_UP);
            assertThat(afterOneTry(0, true).after(k, true, false, true)).as(k.name()).isEqualTo(GIVE_UP);
        }
        // A failure reported as a connect error once the request was written still counts as written.
        assertThat(afterOneTry(1, false).after(CONNECT_ERROR, true, false, true)).isEqualTo(GIVE_UP);
    }

    @Test
    void theKeepAliveRaceIsRetriedOnceAfreshForAnIdempotentRequestOnly() {
        Failover get = afterOneTry(0, true);
        assertThat(get.after(CLOSED, true, true, true)).isEqualTo(SAME_SERVER_FRESH);
        assertThat(get.after(CLOSED, true, true, true)).isEqualTo(GIVE_UP);
        assertThat(afterOneTry(1, false).after(CLOSED, true, true, true)).as("buffered POST").isEqualTo(GIVE_UP);
        assertThat(afterOneTry(0, false).after(CLOSED, true, true, false)).as("unbuffered POST").isEqualTo(GIVE_UP);
        assertThat(afterOneTry(0, true).after(READ_TIMEOUT, true, true, true)).isEqualTo(GIVE_UP);
    }

    @Test
    void aMalformedAnswerIsNeverRetried() {
        assertThat(afterOneTry(3, true).after(MALFORMED, true, false, true)).isEqualTo(GIVE_UP);
    }

    @Test
    void timeoutsAre504AndOtherUpstreamErrors502() {
        assertThat(UpstreamFailure.connect(null, new ConnectTimeoutException("t")).status())
                .isEqualTo(HttpResponseStatus.GATEWAY_TIMEOUT);
        assertThat(UpstreamFailure.connect(null, new ConnectException("refused")).status())
                .isEqualTo(HttpResponseStatus.BAD_GATEWAY);
        assertThat(UpstreamFailure.readTimeout(null).status()).isEqualTo(HttpResponseStatus.GATEWAY_TIMEOUT);
        assertThat(UpstreamFailure.sendTimeout(null).status()).isEqualTo(HttpResponseStatus.GATEWAY_TIMEOUT);
        assertThat(UpstreamFailure.closed(null, null).status()).isEqualTo(HttpResponseStatus.BAD_GATEWAY);
        assertThat(UpstreamFailure.NO_LIVE.status()).isEqualTo(HttpResponseStatus.BAD_GATEWAY);
        assertThat(UpstreamFailure.queueFull(null).status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
    }
}
