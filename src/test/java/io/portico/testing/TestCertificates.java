package io.portico.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Self-signed certificates made for a test, written as PEM files in its directory: with the DNS names asked for,
 * RSA or EC keys, the key as PKCS#8 or in its traditional form (PKCS#1 / SEC1), and expired ones. Nothing is
 * committed.
 */
public final class TestCertificates {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    public enum KeyType { RSA, EC }

    public enum KeyFormat { PKCS8, TRADITIONAL }

    /** A certificate's files and the certificate itself. */
    public record Issued(Path cert, Path key, X509Certificate certificate) {}

    private TestCertificates() {}

    public static Issued issue(Path dir, String file, List<String> names) throws Exception {
        return issue(dir, file, names, KeyType.RSA, KeyFormat.PKCS8, Instant.now().plus(Duration.ofDays(30)));
    }

    public static Issued issue(Path dir, String file, List<String> names, KeyType type, KeyFormat format,
            Instant notAfter) throws Exception {
        KeyPair pair = keyPair(type);
        X509Certificate cert = selfSigned(pair, names, notAfter, type);
        Path certFile = dir.resolve(file + ".pem");
        Path keyFile = dir.resolve(file + ".key");
        Files.writeString(certFile, pem(cert));
        Files.writeString(keyFile, format == KeyFormat.PKCS8
                ? pem(new PemObject("PRIVATE KEY", pair.getPrivate().getEncoded())) : traditional(pair, type));
        return new Issued(certFile, keyFile, cert);
    }

    /** A key file of another key pair than any certificate's. */
    public static Path otherKey(Path dir, String file) throws Exception {
        Path keyFile = dir.resolve(file + ".key");
        Files.writeString(keyFile, pem(new PemObject("PRIVATE KEY", keyPair(KeyType.RSA).getPrivate().getEncoded())));
        return keyFile;
    }

    /** A client SSLContext that trusts exactly these certificates. */
    public static SSLContext trusting(Issued... issued) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        for (int i = 0; i < issued.length; i++) {
            store.setCertificateEntry("c" + i, issued[i].certificate());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private static KeyPair keyPair(KeyType type) throws GeneralSecurityException {
        if (type == KeyType.EC) {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        }
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    private static X509Certificate selfSigned(KeyPair pair, List<String> names, Instant notAfter, KeyType type)
            throws Exception {
        X500Name subject = new X500Name("CN=" + names.get(0));
        Instant notBefore = notAfter.isBefore(Instant.now()) ? notAfter.minus(Duration.ofDays(30))
                : Instant.now().minus(Duration.ofHours(1));
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject,
                BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(notBefore), Date.from(notAfter), subject,
                pair.getPublic());
        // an IPv4 literal is an IP address name (a client that connects to 127.0.0.1 checks that), others DNS names
        GeneralName[] sans = names.stream().map(n -> new GeneralName(
                        n.matches("\\d+\\.\\d+\\.\\d+\\.\\d+") ? GeneralName.iPAddress : GeneralName.dNSName, n))
                .toArray(GeneralName[]::new);
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans));
        String algorithm = type == KeyType.EC ? "SHA256withECDSA" : "SHA256withRSA";
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder(algorithm).build(pair.getPrivate())));
    }

    /** PKCS#1 for RSA; SEC1 with its curve named, as openssl writes it (the JDK's own encoding leaves it out). */
    private static String traditional(KeyPair pair, KeyType type) throws IOException {
        if (type == KeyType.RSA) {
            return pem(pair.getPrivate());
        }
        PrivateKeyInfo info = PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded());
        ASN1ObjectIdentifier curve = ASN1ObjectIdentifier.getInstance(info.getPrivateKeyAlgorithm().getParameters());
        ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
        return pem(new PemObject("EC PRIVATE KEY", new ECPrivateKey(256, inner.getKey(), curve).getEncoded()));
    }

    private static String pem(Object o) throws IOException {
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
            pw.writeObject(o instanceof PemObject p ? p : new JcaMiscPEMGenerator(o).generate());
        }
        return w.toString();
    }
}
