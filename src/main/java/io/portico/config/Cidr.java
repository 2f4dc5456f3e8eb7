package io.portico.config;

import java.net.InetAddress;
import java.util.List;
import java.net.UnknownHostException;

/** An address block such as {@code 10.0.0.0/8} or {@code ::1/128}; literal addresses only, never DNS. */
public record Cidr(byte[] network, int prefix, String text) {

    public static Cidr parse(String text) {
        int slash = text.indexOf('/');
        String host = slash < 0 ? text : text.substring(0, slash);
        if (!InetAddressLiteral.isLiteral(host)) {
            throw new IllegalArgumentException("not an IP address: " + host);
        }
        byte[] addr;
        try {
            addr = InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + host);
        }
        int bits = addr.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad prefix length in " + text);
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("prefix length must be 0.." + bits + " in " + text);
            }
        }
        return new Cidr(mask(addr, prefix), prefix, text);
    }

    /** Whether any of {@code cidrs} contains {@code address}; false for a null address (one that cannot be placed). */
    public static boolean anyContains(List<Cidr> cidrs, InetAddress address) {
        if (address == null) {
            return false;
        }
        for (int i = 0; i < cidrs.size(); i++) { // indexed: no iterator per request on the hot path
            if (cidrs.get(i).contains(address)) {
                return true;
            }
        }
        return false;
    }

    public boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length != network.length) {
            return false;
        }
        return java.util.Arrays.equals(mask(a, prefix), network);
    }

    private static byte[] mask(byte[] addr, int prefix) {
        byte[] out = addr.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] &= (byte) (0xff << (8 - keep));
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
