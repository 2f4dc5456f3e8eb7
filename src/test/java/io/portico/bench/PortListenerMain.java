package io.portico.bench;

import java.net.InetAddress;
import java.net.ServerSocket;

/** A stand-in for demo-app/serve in process tests: listens on the port in args[0] (or exits with args[1]). */
public final class PortListenerMain {

    private PortListenerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 1) {
            System.out.println("failing on purpose");
            System.exit(Integer.parseInt(args[1]));
        }
        try (ServerSocket s = new ServerSocket(Integer.parseInt(args[0]), 50, InetAddress.getLoopbackAddress())) {
            System.out.println("listening");
            while (true) {
                s.accept().close();
            }
        }
    }
}
