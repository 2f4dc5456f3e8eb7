package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class UpstreamAddressTest {

    @Test
    void aTcpServerIsNamedAndAddressedByTheHostAsConfigured() {
        UpstreamAddress app = new UpstreamAddress.Tcp("app.internal", new InetSocketAddress("127.0.0.1", 5000));
        assertThat(app.hostHeader()).isEqualTo("app.internal:5000");
        assertThat(app).hasToString("app.internal:5000");
    }

    @Test
    void aSocketFileHasNoHostSoMadeUpRequestsSayLocalhost() {
        UpstreamAddress app = new UpstreamAddress.Unix(Path.of("/run/gunicorn.sock"));
        assertThat(app.hostHeader()).isEqualTo("localhost");
        assertThat(app).hasToString("unix:/run/gunicorn.sock");
    }
}
