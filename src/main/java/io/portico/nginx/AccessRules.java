package io.portico.nginx;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * nginx's allow/deny rules, checked in order with the first match deciding, as Portico's two lists (served only
 * if in {@code allow} when it is not empty, refused if in {@code deny}). The two agree unless a deny follows an
 * allow it overlaps (nginx lets those clients in, Portico would not); such rules are reported instead.
 */
final class AccessRules {
    record Lists(List<String> allow, List<String> deny, String whyNot) {}

    private AccessRules() {}

    static Lists of(List<Directive> rules) {
        List<String> allow = new ArrayList<>();
        List<String> deny = new ArrayList<>();
        boolean denyAll = false;
        for (Directive r : rules) {
            String what = r.arg(0);
            boolean isAllow = r.name().equals("allow");
            if (what.equals("all")) {
                denyAll = !isAllow;
                break;
            }
            if (!what.matches("[0-9A-Fa-f:.]+(/\\d{1,3})?")) {
                return new Lists(null, null, "Portico's rules are addresses and CIDRs; " + what + " is neither");
            }
            if (what.startsWith("unix:")) {
                return new Lists(null, null, "Portico has no rule for unix-socket clients");
            }
            if (!isAllow) {
                for (String a : allow) {
                    if (overlap(a, what)) {
                        return new Lists(null, null, "deny " + what + " comes after allow " + a + ", which"
                                + " covers part of it: nginx lets those clients in, Portico's deny would refuse them");
                    }
                }
                deny.add(cidr(what));
            } else {
                allow.add(cidr(what));
            }
        }
        if (!denyAll) {
            // Without a final deny all, nginx serves everyone an allow names and everyone else too.
            allow.clear();
        } else if (allow.isEmpty()) {
            deny.clear();
            deny.add("0.0.0.0/0");
            deny.add("::/0");
        }
        return new Lists(allow, deny, null);
    }

    private static String cidr(String text) {
        if (text.contains("/")) {
            return text;
        }
        return text + (text.contains(":") ? "/128" : "/32");
    }

    static boolean overlap(String a, String b) {
        byte[] x = address(a);
        byte[] y = address(b);
        if (x == null || y == null || x.length != y.length) {
            return x == null || y == null;
        }
        int bits = Math.min(prefix(a, x.length * 8), prefix(b, y.length * 8));
        for (int i = 0; i < bits; i++) {
            int bx = (x[i / 8] >> (7 - i % 8)) & 1;
            int by = (y[i / 8] >> (7 - i % 8)) & 1;
            if (bx != by) {
                return false;
            }
        }
        return true;
    }

    private static int prefix(String text, int max) {
        int slash = text.indexOf('/');
        return slash < 0 ? max : Integer.parseInt(text.substring(slash + 1));
    }

    private static byte[] address(String text) {
        String host = text.contains("/") ? text.substring(0, text.indexOf('/')) : text;
        if (!host.matches("[0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
            return null;
        }
        try {
            return InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
