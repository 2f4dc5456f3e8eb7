package io.portico.server;

import io.portico.config.ListenAddress;
import io.portico.config.ListenerConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Which listener of a configuration: its address, and which of the listeners with that address it is ({@code
 * 127.0.0.1:0} may be listed twice, each getting a port of its own). A reload keeps the socket of each key the new
 * configuration still has.
 */
record ListenerKey(ListenAddress address, int nth) {

    /** The key of each listener of {@code listen}, in its order. */
    static List<ListenerKey> of(List<ListenerConfig> listen) {
        List<ListenerKey> keys = new ArrayList<>();
        for (ListenerConfig l : listen) {
            int nth = (int) keys.stream().filter(k -> k.address().equals(l.address())).count();
            keys.add(new ListenerKey(l.address(), nth));
        }
        return keys;
    }

    @Override
    public String toString() {
        return nth == 0 ? address.toString() : address + " (#" + (nth + 1) + ")";
    }
}
