package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The exposition format itself: families once with HELP and TYPE, label values escaped. */
class PrometheusTextTest {

    @Test
    void aServerWithoutZonesOrUpstreamsReportsItsConnectionsOnly() {
        String text = PrometheusText.render(new MetricSources(Map.of(), Set.of(), Map.of(), Map.of(), () -> 7));
        assertThat(text).isEqualTo("""
                # HELP portico_connections_open Client connections open now.
                # TYPE portico_connections_open gauge
                portico_connections_open 7
                """);
    }

    @Test
    void labelValuesAreEscaped() {
        StringBuilder out = new StringBuilder();
        PrometheusText.escape(out, "a\"b\\c\nd");
        assertThat(out).hasToString("a\\\"b\\\\c\\nd");
    }
}
