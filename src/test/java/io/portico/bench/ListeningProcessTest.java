package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ListeningProcessTest {

    @Test
    void findsTheProcessListeningOnAPortAndNothingOnAClosedOne() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/net/tcp")), "needs Linux's /proc");
        int port;
        try (ServerSocket s = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
            assertThat(ListeningProcess.of(port)).hasValue(ProcessHandle.current().pid());
        }
        assertThat(ListeningProcess.of(port)).as("closed").isEmpty();
    }
}
