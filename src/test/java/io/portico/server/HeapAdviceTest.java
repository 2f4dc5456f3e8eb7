package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.portico.config.PorticoConfig;
import io.portico.testing.TestServers;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class HeapAdviceTest {

    @Test
    void countsPorticoTheFullZonesAndTheOpenConnections() {
        HeapAdvice advice = HeapAdvice.of(config("rate-limits { a { rate = 10r/s, max-clients = 1000000 } }\n"
                + "limits.max-connections = 10000"));
        assertThat(advice.zonesBytes()).isEqualTo(115_000_000L);
        assertThat(advice.connectionsBytes()).isEqualTo(10_000L * 3 * 1024);
        assertThat(advice.locationsBytes()).isLessThan(1L << 20);
        assertThat(advice.totalBytes()).isEqualTo((64L << 20) + advice.locationsBytes() + 115_000_000L + 30_720_000L);
        assertThat(advice).hasToString("about 203 MiB at the configured limits (64 MiB for Portico, 110 MiB for the"
                + " rate-limit zones full, 30 MiB for limits.max-connections open)");
        assertThat(advice.fits(256L << 20)).isTrue();
        assertThat(advice.fits(128L << 20)).isFalse();
    }

    @Test
    void countsTheLocationsOfEveryHostOnceTheyNeedAMebibyte() {
        StringBuilder locations = new StringBuilder("locations = [\n");
        for (int i = 0; i < 2000; i++) {
            locations.append("{ path = \"/p").append(i).append("/\", return = { status = 200 } }\n");
        }
        locations.append("]\nhosts = [ { names = [a.example], locations = [ { path = \"/\", return = { status = 200 } }")
                .append(" ] } ]\nlimits.max-connections = 0");
        HeapAdvice advice = HeapAdvice.of(config(locations.toString()));
        assertThat(advice.locationsBytes()).isEqualTo(2001L * 4 * 1024);
        assertThat(advice).hasToString("about 72 MiB at the configured limits (64 MiB for Portico, 8 MiB for the"
                + " locations, 0 MiB for the rate-limit zones full, 0 MiB for limits.max-connections open)");
    }

    @Test
    void countsTheResponseCachesFull() {
        HeapAdvice advice = HeapAdvice.of(config("caches { pages { max-size = 256m }, api { max-size = 64m } }\n"
                + "limits.max-connections = 0"));
        assertThat(advice.cachesBytes()).isEqualTo(320L << 20);
        assertThat(advice.totalBytes()).isEqualTo((64L << 20) + advice.locationsBytes() + (320L << 20));
        assertThat(advice).hasToString("about 384 MiB at the configured limits (64 MiB for Portico, 0 MiB for the"
                + " rate-limit zones full, 320 MiB for the response caches full, 0 MiB for limits.max-connections"
                + " open)");
    }

    @Test
    void aRedisZoneCountsOnlyForTheLocalFallbackItFillsInAnOutage() {
        String store = "store = \"redis://127.0.0.1:6379\", max-clients = 1000000";
        HeapAdvice advice = HeapAdvice.of(config("rate-limits {\n"
                + " fallback { rate = 10r/s, " + store + " }\n"
                + " allows { rate = 10r/s, on-store-failure = allow, " + store + " }\n}\n"
                + "limits.max-connections = 0"));
        assertThat(advice.zonesBytes()).as("the fallback's million clients only").isEqualTo(115_000_000L);
        assertThat(advice.connectionsBytes()).as("unbounded: nothing to count by").isZero();
    }

    @Test
    void theServerWarnsAtStartWhenTheHeapCannotHoldItsZones() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(PorticoServer.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        // more clients than this JVM's heap holds at 115 B each
        long clients = Math.min(Integer.MAX_VALUE, Runtime.getRuntime().maxMemory() / 115 + 1);
        try (PorticoServer small = TestServers.start("rate-limits { a { rate = 10r/s, max-clients = 1000 } }");
                PorticoServer large = TestServers.start(
                        "rate-limits { a { rate = 10r/s, max-clients = " + clients + " } }")) {
            assertThat(events.list).filteredOn(e -> e.getFormattedMessage().startsWith("the heap's maximum"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getFormattedMessage()).contains("rate-limit zones full"));
        } finally {
            logger.detachAppender(events);
        }
    }

    private static PorticoConfig config(String body) {
        return TestServers.config(body, Path.of("."));
    }
}
