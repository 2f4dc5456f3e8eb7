package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoAppCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private CommandLine commandLine(DemoAppCommand command) {
        return new CommandLine(command).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
    }

    @Test
    void aPortInUseIsOneClearLineAndExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int exit = commandLine(new DemoAppCommand()).execute("--listen", "127.0.0.1:" + taken.getLocalPort());
            assertThat(exit).isEqualTo(1);
            assertThat(err.toString()).isEqualTo("demo-app: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + ": address already in use" + System.lineSeparator());
            assertThat(out.toString()).isEmpty();
        }
    }

    @Test
    void aMalformedListenAddressIsAUsageError() {
        int exit = commandLine(new DemoAppCommand()).execute("--listen", "nowhere");
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).startsWith("demo-app: --listen: nowhere (expected:").doesNotContain("Exception");
    }

    @Test
    void servesUntilStoppedThenReturnsZero() throws Exception {
        DemoAppCommand command = new DemoAppCommand();
        CommandLine commandLine = commandLine(command);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                () -> commandLine.execute("--listen", "127.0.0.1:0", "--workers", "3", "--keepalive"));
        Pattern line = Pattern.compile(
                "demo-app listening on 127\\.0\\.0\\.1:(\\d+) \\(3 sync workers, keep-alive on\\)\\R");
        await().atMost(Duration.ofSeconds(10)).until(() -> line.matcher(out.toString()).matches());
        Matcher matcher = line.matcher(out.toString());
        assertThat(matcher.matches()).isTrue();
        HttpResponse<String> health = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + matcher.group(1) + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.body()).isEqualTo("ok");
        assertThat(exit).isNotDone();
        command.stop.complete(null);
        assertThat(exit.get()).isZero();
    }
}
