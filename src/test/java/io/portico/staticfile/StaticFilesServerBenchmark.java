package io.portico.staticfile;

import io.portico.config.StaticConfig;
import io.portico.config.TargetConfig;
import io.portico.route.Responder;
import io.portico.route.Route;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Not a test: serves a directory at {@code /static/} (alias, like the peers' nginx) on one event loop for wrk,
 * until the server core exists to measure instead.
 *
 * <pre>java -cp target/classes:target/test-classes:$(cat cp.txt) io.portico.staticfile.StaticFilesServerBenchmark \
 *     18090 /work/shared/peers/site</pre>
 */
public final class StaticFilesServerBenchmark {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]).toAbsolutePath();
        StaticConfig config = new StaticConfig(64 << 20, 256 << 10, Duration.ofSeconds(1),
                StaticConfig.FollowSymlinks.INSIDE_ROOT, Map.of());
        TargetConfig.Static target = new TargetConfig.Static(dir, true, List.of("index.html"), List.of(), false,
                Optional.empty(), Optional.empty(), false, false);
        try (StaticFiles files = StaticFiles.create(config)) {
            Responder responder = files.responder(Harness.location("/static/", target), target, name -> null);
            try (LoopbackServer server = new LoopbackServer(port, new Route(Harness.location("/static/", target),
                    responder))) {
                System.out.println("serving " + dir + " at http://127.0.0.1:" + server.port() + "/static/");
                server.channel().closeFuture().sync();
            }
        }
    }
}
