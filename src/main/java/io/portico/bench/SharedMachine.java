package io.portico.bench;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * What a comparison measures when the load generator and the servers run on one machine: the notes a report prints
 * next to the figures, so that a ratio comes with its reason.
 */
public final class SharedMachine {

    private SharedMachine() {
    }

    /** True when {@code host} is this machine's loopback (where the client competes with the server for cores). */
    static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The note for a plain {@code bench compare} whose two targets are both on loopback, or null. */
    public static String note(RequestTarget a, RequestTarget b, int cores) {
        if (!loopback(a.host()) || !loopback(b.host())) {
            return null;
        }
        return ("A, B and this load generator all run on this machine and share its %d core(s): the client's own "
                + "CPU is taken from the servers, and a B that runs more processes than A (a proxy in front of an "
                + "app) pays for each of them on the same cores.").formatted(cores);
    }

    /** The built-in scenarios: what every one of them shares. */
    static String builtIn(int cores) {
        return ("The demo app, Portico and this load generator run as three processes on this machine and share its "
                + "%d core(s).").formatted(cores);
    }

    /** Why the built-in "/ direct vs proxied" ratio is low on one machine, and what it does not say. */
    static String proxied(int cores) {
        return ("Direct, a request costs the app's CPU; proxied, it costs the app's and Portico's, on the same %d "
                + "core(s), with the load generator taking its share too. When the cores are the limit, as they are "
                + "here, the throughput ratio is about app / (app + proxy) CPU per request: x0.5 means Portico "
                + "spends as much CPU per request as this trivial app. It is the price of the proxy's CPU, not a "
                + "slowdown your users would see with Portico on cores of its own in front of an app that does real "
                + "work; p99 likewise includes the wait for a core.").formatted(cores);
    }
}
