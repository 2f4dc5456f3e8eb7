package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.portico.testing.TestCertificates;
import io.portico.testing.TestCertificates.Issued;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A TLS listener's files are read and checked at load: each problem names the file, the line and the key. */
class TlsConfigTest {
    @TempDir
    Path dir;

    private static String listener(String tls) {
        return "portico {\n listen = [\n  { address = \"127.0.0.1:8443\", tls {\n" + tls + "\n } }\n ]\n}";
    }

    private static String cert(Path cert, Path key) {
        return "   certificates = [ { cert = \"" + cert + "\", key = \"" + key + "\" } ]";
    }

    private List<String> problems(String text) {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> ConfigLoader.parse(text, "tls.conf", dir));
        assertThat(e).as("refused").isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void aValidListenerHasItsCertificateNamesAndDefaults() throws Exception {
        Issued a = TestCertificates.issue(dir, "a", List.of("example.com", "*.example.com"));
        PorticoConfig c = ConfigLoader.parse(listener(cert(a.cert(), a.key())), "tls.conf", dir);
        TlsConfig tls = c.listen().get(0).tls().orElseThrow();
        assertThat(tls.certificates()).singleElement()
                .satisfies(t -> assertThat(t.names()).containsExactly("example.com", "*.example.com"));
        assertThat(tls.protocols()).containsExactly("TLSv1.2", "TLSv1.3");
        assertThat(tls.provider()).isEqualTo(TlsConfig.Provider.AUTO);
        assertThat(ConfigDump.render(c)).contains("address = \"127.0.0.1:8443\"", "example.com, *.example.com");
    }

    @Test
    void aMissingFileIsNamedWithItsLineAndKey() throws Exception {
        Issued a = TestCertificates.issue(dir, "a", List.of("example.com"));
        assertThat(problems(listener(cert(dir.resolve("nope.pem"), a.key())))).containsExactly(
                "tls.conf:4: portico.listen.0.tls.certificates.0.cert: " + dir.resolve("nope.pem")
                        + " does not exist (expected: a PEM certificate chain)");
    }

    @Test
    void aKeyThatIsNotTheCertificatesIsRefused() throws Exception {
        Issued a = TestCertificates.issue(dir, "a", List.of("example.com"));
        Path other = TestCertificates.otherKey(dir, "other");
        assertThat(problems(listener(cert(a.cert(), other)))).containsExactly(
                "tls.conf:4: portico.listen.0.tls.certificates.0.key: " + other + " is not the key of " + a.cert()
                        + " (expected: the private key the certificate was issued for)");
    }

    @Test
    void anExpiredCertificateIsRefused() throws Exception {
        Instant expired = Instant.parse("2026-01-01T00:00:00Z");
        Issued a = TestCertificates.issue(dir, "a", List.of("example.com"), TestCertificates.KeyType.EC,
                TestCertificates.KeyFormat.PKCS8, expired);
        assertThat(problems(listener(cert(a.cert(), a.key())))).containsExactly(
                "tls.conf:4: portico.listen.0.tls.certificates.0.cert: " + a.cert()
                        + " expired on 2026-01-01T00:00:00Z (expected: a certificate valid now)");
    }

    @Test
    void notPemAndEncryptedKeysAreRefused() throws Exception {
        Issued a = TestCertificates.issue(dir, "a", List.of("example.com"));
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "hello");
        Path encrypted = Files.writeString(dir.resolve("enc.key"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        assertThat(problems(listener(cert(garbage, a.key())))).singleElement().asString()
                .contains("certificates.0.cert: " + garbage + ": no PEM CERTIFICATE block");
        assertThat(problems(listener(cert(a.cert(), encrypted)))).singleElement().asString()
                .contains("certificates.0.key: " + encrypted + ": the key is encrypted");
    }

    @Test
    void itsDurationsNeedAUnit() throws Exception {
        Issued a = TestCertificates.issue(dir, "a", List.of("example.com"));
        assertThat(problems(listener(cert(a.cert(), a.key()) + "\n   handshake-timeout = 10, session-timeout = 300")))
                .allSatisfy(p -> assertThat(p).contains("has no unit")).hasSize(2);
    }

    @Test
    void versionsCiphersAndAnEmptyListAreChecked() throws Exception {
        Issued a = TestCertificates.issue(dir, "a", List.of("example.com"));
        assertThat(problems(listener(cert(a.cert(), a.key())
                + "\n   protocols = [TLSv1.1, TLSv1.3], ciphers = [TLS_NOT_A_CIPHER]"))).containsExactly(
                "tls.conf:5: portico.listen.0.tls.protocols: 'TLSv1.1' (expected: some of TLSv1.2, TLSv1.3; older"
                        + " versions are insecure)",
                "tls.conf:5: portico.listen.0.tls.ciphers: 'TLS_NOT_A_CIPHER' is not a cipher suite this JVM knows"
                        + " (expected: IANA names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)");
        assertThat(problems(listener("   certificates = []"))).containsExactly(
                "tls.conf:4: portico.listen.0.tls.certificates: no certificate (expected: at least one"
                        + " { cert = \"...\", key = \"...\" })");
    }
}
