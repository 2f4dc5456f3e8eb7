package io.portico.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.portico.config.CacheZoneConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A zone's memory stays within max-size however many keys fill it; purges by key and prefix. */
class CacheZoneTest {
    private static final HttpHeaders NO_HEADERS = new DefaultHttpHeaders();

    private static CachedResponse response(int bodyBytes) {
        HttpHeaders h = new DefaultHttpHeaders().set("Content-Type", "text/html").set("ETag", "\"v1\"");
        return new CachedResponse(200, h, new byte[bodyBytes], 0, Long.MAX_VALUE, 0, "");
    }

    @Test
    void oneHundredThousandDistinctKeysStayWithinMaxSize() {
        long maxSize = 4L << 20;
        CacheZone zone = new CacheZone(new CacheZoneConfig("pages", maxSize, Duration.ofMinutes(10)),
                Ticker.systemTicker());
        int perEntry = 0;
        for (int i = 0; i < 100_000; i++) {
            String key = "http" + "example.com/hello/user-" + i;
            CachedResponse r = response(512);
            perEntry = 2 * key.length() + r.weight() + CacheZone.ENTRY_OVERHEAD;
            zone.store(key, List.of(), NO_HEADERS, r);
            assertThat(zone.weightedSize()).as("after %d keys", i + 1).isLessThanOrEqualTo(maxSize);
        }
        // The zone is full (within one entry of max-size), evicted what did not fit, and counted it.
        assertThat(zone.weightedSize()).isGreaterThan(maxSize - 2L * perEntry);
        assertThat(zone.evictions.sum()).isGreaterThan(100_000 - maxSize / perEntry - 100);
        assertThat(zone.entryCount()).isLessThanOrEqualTo(maxSize / (512 + CacheZone.ENTRY_OVERHEAD));
    }

    @Test
    void anEntryLargerThanTheZoneIsNotKept() {
        CacheZone zone = new CacheZone(new CacheZoneConfig("tiny", 4096, Duration.ofMinutes(10)),
                Ticker.systemTicker());
        zone.store("big", List.of(), NO_HEADERS, response(8192));
        assertThat(zone.response("big")).isNull();
        assertThat(zone.weightedSize()).isLessThanOrEqualTo(4096);
    }

    @Test
    void purgeByKeyTakesItsVariantsAndPurgeByPrefixTakesEveryKeyUnderIt() {
        CacheZone zone = new CacheZone(new CacheZoneConfig("pages", 1 << 20, Duration.ofMinutes(10)),
                Ticker.systemTicker());
        HttpHeaders en = new DefaultHttpHeaders().set("Accept-Language", "en");
        HttpHeaders fr = new DefaultHttpHeaders().set("Accept-Language", "fr");
        zone.store("httpx/a", List.of("accept-language"), en, response(10));
        zone.store("httpx/a", List.of("accept-language"), fr, response(10));
        zone.store("httpx/ab", List.of(), NO_HEADERS, response(10));
        zone.store("httpx/b/1", List.of(), NO_HEADERS, response(10));
        zone.store("httpx/b/2", List.of(), NO_HEADERS, response(10));
        assertThat(zone.response(zone.variantKey("httpx/a", fr))).isNotNull();

        assertThat(zone.purge("httpx/a")).isEqualTo(3); // the Vary names and both variants, not httpx/ab
        assertThat(zone.response(zone.variantKey("httpx/a", en))).isNull();
        assertThat(zone.response("httpx/ab")).isNotNull();
        assertThat(zone.purgePrefix("httpx/b/")).isEqualTo(2);
        assertThat(zone.response("httpx/b/1")).isNull();
        assertThat(zone.response("httpx/ab")).isNotNull();
    }
}
