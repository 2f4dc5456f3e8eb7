package io.portico.nginx;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.cli.Main;
import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import io.portico.config.TlsConfig;
import io.portico.testing.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code portico import}: 0 when everything mapped, 1 when something was left out, 2 for bad nginx input. */
class ImportCommandTest {
    @TempDir
    Path dir;

    private record Run(int code, String err) {}

    private Run run(String... args) {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            return new Run(Main.run(args), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(saved);
        }
    }

    private Path nginx(String text) throws Exception {
        Path f = dir.resolve("nginx.conf");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void everythingMappedExitsZeroAndTheOutputLoads() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        Path f = nginx("http { server { listen 127.0.0.1:8080; root " + www + "; } }\n");
        Path out = dir.resolve("conf/portico.conf");
        Files.createDirectories(out.getParent());
        Run r = run("import", f.toString(), "-o", out.toString(), "--check");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("everything mapped", "check: configuration ok (1 locations)");
        PorticoConfig c = ConfigLoader.load(out, Optional.empty());
        assertThat(c.listen()).extracting(Object::toString).containsExactly("127.0.0.1:8080");
    }

    @Test
    void somethingLeftOutExitsOneUnlessPartial() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        Path f = nginx("http {\n  gzip on;\n  server { listen 127.0.0.1:8080; root " + www + "; }\n}\n");
        Path out = dir.resolve("portico.conf");
        Run r = run("import", f.toString(), "-o", out.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("not mapped: nginx.conf:2: gzip on;  compression is not supported yet (issue 27)",
                "1 directive not mapped");
        assertThat(Files.readString(out)).contains("#   nginx.conf:2: gzip on;  compression is not supported yet");
        assertThat(run("import", "--partial", f.toString(), "-o", out.toString()).code()).isZero();
    }

    @Test
    void badNginxInputExitsTwoWithFileAndLine() throws Exception {
        Path f = nginx("http {\n  server {\n    listen 80\n    root /srv;\n  }\n}\n");
        Run r = run("import", f.toString(), "-o", dir.resolve("out.conf").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("portico import: nginx.conf:3: directive \"listen\" is not terminated by \";\"");
        assertThat(dir.resolve("out.conf")).doesNotExist();
        Path missing = nginx("http {\n  include sites-enabled/site.conf;\n}\n");
        assertThat(run("import", missing.toString()).err()).contains("nginx.conf:2: include \"");
        assertThat(run("import", "--from", "apache", missing.toString()).code()).isEqualTo(2);
    }

    @Test
    void aTlsServerBecomesATlsListenerWithItsCertificates() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        Path certs = Files.createDirectories(dir.resolve("certs"));
        TestCertificates.issue(certs, "example", List.of("example.com"));
        Path f = nginx("http {\n  ssl_protocols TLSv1 TLSv1.2 TLSv1.3;\n  server {\n"
                + "    listen 127.0.0.1:8443 ssl http2;\n    server_name example.com;\n"
                + "    ssl_certificate certs/example.pem;\n    ssl_certificate_key certs/example.key;\n"
                + "    ssl_session_timeout 10m;\n    root " + www + ";\n  }\n}\n");
        NginxImport.Result r = NginxImport.translate(f);
        assertThat(Imports.unmapped(r)).isEmpty();
        assertThat(r.hocon()).contains("address = \"127.0.0.1:8443\"", "http2 = on  # nginx.conf:4: listen",
                "{ cert = \"" + certs.resolve("example.pem") + "\", key = \"" + certs.resolve("example.key") + "\" }",
                "protocols = [\"TLSv1.2\", \"TLSv1.3\"]");
        assertThat(r.report().notes()).extracting(Report.Item::reason)
                .contains("TLSv1 left out: Portico refuses them as insecure");
        PorticoConfig c = Imports.load(r, dir);
        TlsConfig tls = c.listen().get(0).tls().orElseThrow();
        assertThat(tls.certificates()).singleElement().satisfies(t -> assertThat(t.names()).containsExactly("example.com"));
        assertThat(tls.protocols()).containsExactly("TLSv1.2", "TLSv1.3");
        assertThat(tls.sessionTimeout()).hasMinutes(10);
        assertThat(c.listen().get(0).http2()).as("listen ... ssl http2").isTrue();
    }

    @Test
    void httpToHttpsRedirectBesideTheTlsSiteIsTwoHostsOfOneNameOnTheirOwnListeners() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        Path certs = Files.createDirectories(dir.resolve("certs"));
        TestCertificates.Issued cert = TestCertificates.issue(certs, "a", List.of("example.com"));
        Path f = nginx("http {\n"
                + "  server { listen 80; server_name example.com; return 301 https://$host$request_uri; }\n"
                + "  server { listen 443 ssl; server_name example.com; ssl_certificate " + cert.cert() + ";"
                + " ssl_certificate_key " + cert.key() + "; root " + www + "; }\n}\n");
        NginxImport.Result r = NginxImport.translate(f);
        // nginx's default on port 80 is the redirect (the first server there): the default host on that listener;
        // the top level is the TLS site (a redirect as the default of 443 would loop).
        assertThat(Imports.unmapped(r)).isEmpty();
        PorticoConfig c = Imports.load(r, dir);
        // The default server's addresses first.
        assertThat(c.listen()).extracting(Object::toString).containsExactly("0.0.0.0:443 tls", "0.0.0.0:80");
        // example.com on port 80: the redirect host, on that listener only.
        assertThat(c.hosts()).singleElement().satisfies(h -> {
            assertThat(h.names()).containsExactly("example.com");
            assertThat(h.listen()).extracting(Object::toString).containsExactly("0.0.0.0:80");
            assertThat(h.isDefault()).as("every name on port 80").isTrue();
            TargetConfig.Return ret = (TargetConfig.Return) h.locations().get(0).target();
            assertThat(ret.status()).isEqualTo(301);
            assertThat(ret.location().orElseThrow().text()).isEqualTo("https://$host$request_uri");
        });
        // example.com on 443: not that host there, so the top-level locations, which are the TLS site's.
        assertThat(c.hosts().get(0).on(c.listen().get(0).address())).isFalse();
        assertThat(((TargetConfig.Static) c.locations().get(0).target()).dir()).isEqualTo(www);
        assertThat(c.listen().get(0).http2()).as("nginx without http2 speaks HTTP/1.1 only").isFalse();
    }
}
