package io.portico.testing;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * PROXY protocol headers written byte by byte from the specification (haproxy.org/download/2.8/doc/proxy-protocol.txt),
 * not by Netty's encoder, so that the tests check Portico against the text rather than against the library it reads
 * them with.
 */
public final class ProxyHeaders {
    public static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    public static final int PP2_TYPE_ALPN = 0x01;
    public static final int PP2_TYPE_AUTHORITY = 0x02;
    public static final int PP2_TYPE_SSL = 0x20;
    public static final int PP2_SUBTYPE_SSL_VERSION = 0x21;
    public static final int PP2_CLIENT_SSL = 0x01;

    private ProxyHeaders() {}

    public static byte[] v1(String line) {
        return (line + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** A v2 PROXY command over TCP (IPv4 or IPv6 by the source's form), with {@code tlvs} appended. */
    public static byte[] v2(String source, int sourcePort, String destination, int destinationPort, byte[] tlvs) {
        byte[] src = address(source);
        byte[] dst = address(destination);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(src);
        body.writeBytes(dst);
        body.write(sourcePort >> 8);
        body.write(sourcePort);
        body.write(destinationPort >> 8);
        body.write(destinationPort);
        body.writeBytes(tlvs);
        return v2(0x21, src.length == 4 ? 0x11 : 0x21, body.toByteArray());
    }

    /** v2's LOCAL command (a balancer's own connection, its health check), with no address. */
    public static byte[] v2Local() {
        return v2(0x20, 0x00, new byte[0]);
    }

    /** v2 PROXY with the family AF_UNSPEC: the balancer does not know (v1's UNKNOWN). */
    public static byte[] v2Unspec() {
        return v2(0x21, 0x00, new byte[0]);
    }

    public static byte[] v2(int versionCommand, int family, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(V2_SIGNATURE);
        out.write(versionCommand);
        out.write(family);
        out.write(body.length >> 8);
        out.write(body.length);
        out.writeBytes(body);
        return out.toByteArray();
    }

    public static byte[] tlv(int type, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(type);
        out.write(value.length >> 8);
        out.write(value.length);
        out.writeBytes(value);
        return out.toByteArray();
    }

    /** PP2_TYPE_SSL: the client's bit field, verify = 0 (its certificate, if any, verified) and a version sub-TLV. */
    public static byte[] sslTlv(int client, String version) {
        ByteArrayOutputStream value = new ByteArrayOutputStream();
        value.write(client);
        value.writeBytes(new byte[4]);
        value.writeBytes(tlv(PP2_SUBTYPE_SSL_VERSION, version.getBytes(StandardCharsets.US_ASCII)));
        return tlv(PP2_TYPE_SSL, value.toByteArray());
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    public static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] address(String literal) {
        try {
            return InetAddress.getByName(literal).getAddress(); // literals only in these tests: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
