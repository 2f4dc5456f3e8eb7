package io.portico.ratelimit;

/**
 * What a zone counts a request by: an IPv4 address, an IPv6 prefix, or text (header values, combined keys).
 * Equality is by that value only.
 *
 * <p>The key object also carries the client's state for {@link CompactZoneStore}: a request builds a key as a
 * probe, and a new client is stored as a {@link #copy} that is both the cache's key and its value, so a client
 * costs one small object instead of a key plus a state holder (24 bytes instead of 40 for IPv4). Copying keeps
 * a caller's key from ever becoming shared state. Other stores ignore {@code tat}.
 */
abstract sealed class ClientKey permits ClientKey.Ipv4, ClientKey.Ipv6, ClientKey.Text {

    /** {@link CompactZoneStore}'s theoretical arrival time of the next request; MIN_VALUE: never seen. */
    volatile long tat = Long.MIN_VALUE;

    /** An equal key with fresh state. */
    abstract ClientKey copy();

    static ClientKey ipv4(int address) {
        return new Ipv4(address);
    }

    static ClientKey ipv6(long high, long low) {
        return new Ipv6(high, low);
    }

    static ClientKey text(String text) {
        return new Text(text);
    }

    static final class Ipv4 extends ClientKey {
        private final int address;

        Ipv4(int address) {
            this.address = address;
        }

        @Override
        ClientKey copy() {
            return new Ipv4(address);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Ipv4 other && other.address == address;
        }

        @Override
        public int hashCode() {
            return address * 0x9E3779B9; // spread consecutive addresses across the table
        }

        @Override
        public String toString() {
            return ((address >>> 24) & 0xff) + "." + ((address >>> 16) & 0xff) + "." + ((address >>> 8) & 0xff)
                    + "." + (address & 0xff);
        }
    }

    static final class Ipv6 extends ClientKey {
        private final long high;
        private final long low;

        Ipv6(long high, long low) {
            this.high = high;
            this.low = low;
        }

        @Override
        ClientKey copy() {
            return new Ipv6(high, low);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Ipv6 other && other.high == high && other.low == low;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(high * 0x9E3779B97F4A7C15L ^ low);
        }

        @Override
        public String toString() {
            return Long.toHexString(high) + ":" + Long.toHexString(low);
        }
    }

    static final class Text extends ClientKey {
        private final String text;

        Text(String text) {
            this.text = text;
        }

        @Override
        ClientKey copy() {
            return new Text(text);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Text other && other.text.equals(text);
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
}
