package io.portico.config;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and private keys from PEM files, with the JDK alone: a chain of {@code CERTIFICATE} blocks, and a key
 * as PKCS#8 ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}), the three forms
 * that openssl and certbot write. PKCS#1 and SEC1 keys are rewrapped as PKCS#8, which the JDK reads.
 */
final class PemFiles {
    private static final Pattern BLOCK =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
    /** AlgorithmIdentifier rsaEncryption, NULL parameters. */
    private static final byte[] RSA_ALGORITHM = hex("300d06092a864886f70d0101010500");
    /** OID id-ecPublicKey. */
    private static final byte[] EC_PUBLIC_KEY = hex("06072a8648ce3d0201");

    private PemFiles() {}

    /** The certificates of {@code file}, leaf first, as the file lists them. */
    static List<X509Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        List<X509Certificate> out = new ArrayList<>();
        for (Block b : blocks(Files.readString(file, StandardCharsets.US_ASCII))) {
            if (b.type.equals("CERTIFICATE")) {
                out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der)));
            }
        }
        if (out.isEmpty()) {
            throw new GeneralSecurityException("no PEM CERTIFICATE block");
        }
        return List.copyOf(out);
    }

    /** The one private key of {@code file}. */
    static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        for (Block b : blocks(Files.readString(file, StandardCharsets.US_ASCII))) {
            switch (b.type) {
                case "PRIVATE KEY" -> {
                    return pkcs8(b.der);
                }
                case "RSA PRIVATE KEY" -> {
                    return pkcs8(sequence(integerZero(), RSA_ALGORITHM, tlv(0x04, b.der)));
                }
                case "EC PRIVATE KEY" -> {
                    byte[] algorithm = sequence(EC_PUBLIC_KEY, curveOf(b.der));
                    return pkcs8(sequence(integerZero(), algorithm, tlv(0x04, b.der)));
                }
                case "ENCRYPTED PRIVATE KEY" -> throw new GeneralSecurityException(
                        "the key is encrypted (expected: an unencrypted key, e.g. openssl pkey -in KEY -out KEY.pem)");
                default -> {
                    // parameters (EC PARAMETERS) and certificates may share the file
                }
            }
        }
        throw new GeneralSecurityException("no PEM PRIVATE KEY block");
    }

    /** Whether {@code key} is the private half of {@code cert}'s public key: one signature made and checked. */
    static boolean matches(PrivateKey key, X509Certificate cert) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        try {
            byte[] probe = "portico".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(cert.getPublicKey());
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false; // a key of another type than the certificate's
        }
    }

    private record Block(String type, byte[] der) {}

    private static List<Block> blocks(String text) throws GeneralSecurityException {
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            try {
                out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
            } catch (IllegalArgumentException e) {
                throw new GeneralSecurityException("bad base64 in a PEM " + m.group(1) + " block");
            }
        }
        return out;
    }

    private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        GeneralSecurityException last = null;
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new GeneralSecurityException("not an RSA, EC or EdDSA private key", last);
    }

    /** The named-curve OID in a SEC1 ECPrivateKey's [0] parameters. */
    private static byte[] curveOf(byte[] sec1) throws GeneralSecurityException {
        int[] seq = header(sec1, 0);
        int i = seq[0];
        int end = seq[0] + seq[1];
        while (i < end) {
            int[] h = header(sec1, i);
            if ((sec1[i] & 0xff) == 0xa0) {
                int[] oid = header(sec1, h[0]);
                byte[] out = new byte[oid[0] - h[0] + oid[1]];
                System.arraycopy(sec1, h[0], out, 0, out.length);
                return out;
            }
            i = h[0] + h[1];
        }
        throw new GeneralSecurityException("an EC key without its curve (expected: openssl ecparam -genkey -name ...)");
    }

    /** {contents offset, contents length} of the DER element at {@code at}. */
    private static int[] header(byte[] der, int at) throws GeneralSecurityException {
        if (at + 2 > der.length) {
            throw new GeneralSecurityException("truncated key");
        }
        int len = der[at + 1] & 0xff;
        int offset = at + 2;
        if (len >= 0x80) {
            int n = len & 0x7f;
            if (n > 3 || offset + n > der.length) {
                throw new GeneralSecurityException("bad key length");
            }
            len = 0;
            for (int k = 0; k < n; k++) {
                len = len << 8 | (der[offset + k] & 0xff);
            }
            offset += n;
        }
        if (offset + len > der.length) {
            throw new GeneralSecurityException("truncated key");
        }
        return new int[] {offset, len};
    }

    private static byte[] integerZero() {
        return new byte[] {0x02, 0x01, 0x00};
    }

    private static byte[] sequence(byte[]... parts) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            body.writeBytes(p);
        }
        return tlv(0x30, body.toByteArray());
    }

    private static byte[] tlv(int tag, byte[] contents) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(contents.length + 6);
        out.write(tag);
        int n = contents.length;
        if (n < 0x80) {
            out.write(n);
        } else if (n < 0x100) {
            out.write(0x81);
            out.write(n);
        } else if (n < 0x10000) {
            out.write(0x82);
            out.write(n >> 8);
            out.write(n);
        } else {
            out.write(0x83);
            out.write(n >> 16);
            out.write(n >> 8);
            out.write(n);
        }
        out.writeBytes(contents);
        return out.toByteArray();
    }

    private static byte[] hex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
