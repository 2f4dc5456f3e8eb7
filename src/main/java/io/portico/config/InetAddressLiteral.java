package io.portico.config;

/** Tells an IP literal from a host name without asking DNS. */
final class InetAddressLiteral {
    private InetAddressLiteral() {}

    static boolean isLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.' || c == '%');
        }
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }
}
