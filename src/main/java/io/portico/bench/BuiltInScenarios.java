package io.portico.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * {@code portico bench compare} with no URLs: starts the demo app and Portico in front of it as separate processes
 * from the same jar, on loopback, and compares direct against through-Portico for a few typical loads.
 */
public final class BuiltInScenarios {

    private static final Duration READY = Duration.ofSeconds(30);

    private final BenchOptions base;
    private final int rounds;
    private final List<String> javaCommand;
    private final String mainClass;
    private final Path workDir;
    private final ClientLoops loops;
    private final PrintWriter notices;

    /**
     * {@code javaCommand}: the command prefix that runs a class of this jar ({@link #javaPrefix()}); {@code mainClass}:
     * the CLI entry point that understands {@code demo-app} and {@code serve} (io.portico.cli.Main).
     */
    public BuiltInScenarios(BenchOptions base, int rounds, List<String> javaCommand, String mainClass, Path workDir,
            ClientLoops loops, PrintWriter notices) {
        this.base = base;
        this.rounds = rounds;
        this.javaCommand = List.copyOf(javaCommand);
        this.mainClass = mainClass;
        this.workDir = workDir;
        this.loops = loops;
        this.notices = notices;
    }

    /** {@code java -cp <this jar or class path>}, with the running JVM's java. */
    public static List<String> javaPrefix() {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(javaBin, "-cp", System.getProperty("java.class.path"));
    }

    /**
     * The Portico configuration the scenarios run: static files, a rate-limited path, a proxy to the app, and the
     * app's /hello/ pages behind a 1 s micro-cache (nginx's proxy_cache_valid 200 1s with proxy_cache_lock).
     */
    static String porticoConf(int porticoPort, int appPort, Path staticDir) {
        return """
                portico {
                  listen = ["127.0.0.1:%d"]
                  access-log = off
                  demo-app.enabled = false
                  upstreams { app { servers = ["127.0.0.1:%d"] } }
                  rate-limits { perclient { rate = 100r/s, burst = 20, nodelay = true } }
                  caches { micro { max-size = 16m } }
                  locations = [
                    { path = "/static/", alias = "%3$s/" }
                    { path = "/hello/", proxy = app, cache { zone = micro, valid = { 200 = 1s } } }
                    { path = "/gz/", alias = "%3$s/", compression { enabled = true, codings = [gzip], gzip-level = 5 } }
                    { path = "/gzapp/", proxy = "http://127.0.0.1:%2$d/files/",
                      compression { enabled = true, codings = [gzip], gzip-level = 5 } }
                    { path = "/limited/", proxy = app, rate-limit = perclient }
                    { path = "/", proxy = app }
                  ]
                }
                """.formatted(porticoPort, appPort, staticDir.toAbsolutePath().toString().replace("\\", "/"));
    }

    /** {@link #porticoConf(int, int, Path)} plus a TLS listener on {@code tlsPort} with {@code cert} and {@code key}. */
    static String porticoConf(int porticoPort, int appPort, Path staticDir, int tlsPort, Path cert, Path key) {
        return porticoConf(porticoPort, appPort, staticDir).replace("listen = [\"127.0.0.1:" + porticoPort + "\"]",
                "listen = [\"127.0.0.1:%d\", { address = \"127.0.0.1:%d\", tls { certificates = [ { cert = \"%s\", key = \"%s\" } ] } }]"
                        .formatted(porticoPort, tlsPort, pemPath(cert), pemPath(key)));
    }

    private static String pemPath(Path p) {
        return p.toAbsolutePath().toString().replace("\\", "/");
    }

    /**
     * A self-signed ECDSA P-256 certificate for 127.0.0.1, valid two days, made by the JDK's own keytool (no
     * dependency) and written as PEM: {@code [cert, key]}, the key PKCS#8. Only the built-in TLS scenario uses it,
     * with certificate checks off.
     */
    static Path[] selfSigned(Path dir) throws IOException, InterruptedException {
        Path store = dir.resolve("tls.p12");
        Files.deleteIfExists(store);
        Path log = dir.resolve("keytool.log");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        char[] password = "portico-bench".toCharArray();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "bench", "-keyalg", "EC", "-groupname",
                "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass",
                new String(password)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool could not make the TLS scenario's certificate: " + Files.readString(log));
        }
        try (java.io.InputStream in = Files.newInputStream(store)) {
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            ks.load(in, password);
            Path cert = dir.resolve("tls-cert.pem");
            Path key = dir.resolve("tls-key.pem");
            Files.writeString(cert, pem("CERTIFICATE", ks.getCertificate("bench").getEncoded()));
            Files.writeString(key, pem("PRIVATE KEY", ks.getKey("bench", password).getEncoded()));
            return new Path[] {cert, key};
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot read keytool's certificate: " + e.getMessage(), e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'})
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The names {@link #run(java.util.Set)} takes, in the order the scenarios run. */
    public static final List<String> NAMES =
            List.of("static", "proxy", "block", "tls", "slow-clients", "flood", "compression", "micro-cache");

    /** Runs every scenario. Child processes are gone when this returns or throws. */
    public List<Scenario> run() throws IOException, InterruptedException {
        return run(java.util.Set.copyOf(NAMES));
    }

    /** Runs the scenarios named in {@code only} (of {@link #NAMES}). Child processes are gone when this returns. */
    public List<Scenario> run(java.util.Set<String> only) throws IOException, InterruptedException {
        int app = freePort();
        int portico = freePort();
        int porticoTls = freePort();
        Path staticDir = Files.createDirectories(workDir.resolve("static"));
        Files.write(staticDir.resolve("x"), new byte[4096]);
        Files.writeString(staticDir.resolve("page.html"), htmlPage(20 * 1024));
        Path conf = workDir.resolve("portico.conf");
        Path[] certAndKey = selfSigned(workDir);
        Files.writeString(conf, porticoConf(portico, app, staticDir, porticoTls, certAndKey[0], certAndKey[1]));
        List<String> appCmd = new ArrayList<>(javaCommand);
        // The app serves the very file Portico serves, so both sides do the same work and the probe agrees.
        appCmd.addAll(List.of(mainClass, "demo-app", "--listen", "127.0.0.1:" + app, "--workers", "2",
                "--root", staticDir.toString()));
        List<String> serveCmd = new ArrayList<>(javaCommand);
        serveCmd.addAll(List.of(mainClass, "serve", "--conf", conf.toString()));
        try (ManagedProcess appProcess = ManagedProcess.start("demo-app", appCmd, workDir.resolve("demo-app.log"));
                ManagedProcess porticoProcess = ManagedProcess.start("portico", serveCmd,
                        workDir.resolve("portico.log"))) {
            appProcess.awaitPort(app, READY);
            porticoProcess.awaitPort(portico, READY);
            porticoProcess.awaitPort(porticoTls, READY);
            String direct = "http://127.0.0.1:" + app;
            String proxied = "http://127.0.0.1:" + portico;
            int cores = Runtime.getRuntime().availableProcessors();
            servers = List.of(appProcess.processId(), porticoProcess.processId());
            List<String> shared = List.of(SharedMachine.builtIn(cores));
            List<Scenario> rows = new ArrayList<>();
            if (only.contains("static")) {
                rows.add(compared("static file: app /files/x vs Portico /static/x", base, direct + "/files/x",
                        proxied + "/static/x", shared, CompareMetric.THROUGHPUT, CompareMetric.P99));
            }
            if (only.contains("proxy")) {
                rows.add(compared("/ direct vs proxied", base, direct + "/", proxied + "/",
                        List.of(SharedMachine.builtIn(cores), SharedMachine.proxied(cores)),
                        CompareMetric.THROUGHPUT, CompareMetric.P99));
            }
            if (only.contains("block")) {
                rows.add(compared("/block?ms=100, 200 clients, direct vs proxied", base.withLoad(200, 0,
                        base.duration()), direct + "/block?ms=100", proxied + "/block?ms=100", shared,
                        CompareMetric.AVAILABILITY, CompareMetric.P99, CompareMetric.THROUGHPUT));
            }
            if (only.contains("tls")) {
                rows.add(compared("TLS at the front: app /files/x over HTTP vs Portico /static/x over HTTPS",
                        base.withInsecure(), direct + "/files/x", "https://127.0.0.1:" + porticoTls + "/static/x",
                        shared, CompareMetric.THROUGHPUT, CompareMetric.P99));
            }
            if (only.contains("slow-clients")) {
                rows.add(scenario("others' latency with 50 slow clients holding connections, direct vs proxied",
                        slowClients(app, portico), shared, CompareMetric.P99, CompareMetric.AVAILABILITY,
                        CompareMetric.THROUGHPUT));
            }
            if (only.contains("flood")) {
                rows.add(scenario("others' latency while one client floods at 10x its limit (A: no limit, B: limited)",
                        flood(proxied), shared, CompareMetric.P99, CompareMetric.P50, CompareMetric.AVAILABILITY));
            }
            if (only.contains("compression")) {
                // Both sides send Accept-Encoding: gzip; A's location does not compress, B's does (gzip level 5,
                // nginx's gzip_comp_level 5). A static page is compressed once and kept in the file cache; the
                // app's is compressed on every response, as nginx compresses a proxied one.
                BenchOptions gzip = base.withHeader("Accept-Encoding", "gzip");
                rows.add(compared("compression: 20 KB HTML page, static, identity vs gzip", gzip,
                        proxied + "/static/page.html", proxied + "/gz/page.html", shared, "identity", "gzip",
                        CompareMetric.THROUGHPUT, CompareMetric.BYTES, CompareMetric.P99));
                rows.add(compared("compression: 20 KB HTML page from the app, proxied identity vs gzip", gzip,
                        proxied + "/files/page.html", proxied + "/gzapp/page.html", shared, "identity", "gzip",
                        CompareMetric.THROUGHPUT, CompareMetric.BYTES, CompareMetric.P99));
            }
            if (only.contains("micro-cache")) {
                // The gain a front tier gives a slow app: the page rendered once a second, not once per request.
                rows.add(compared("micro-cache: app /hello/bench direct vs Portico with a 1 s cache", base,
                        direct + "/hello/bench", proxied + "/hello/bench", shared, CompareMetric.THROUGHPUT,
                        CompareMetric.P99));
            }
            return rows;
        }
    }

    private static Scenario scenario(String name, CompareResult result, List<String> notes,
            CompareMetric... metrics) {
        return new Scenario(name, result, List.of(metrics), notes, List.of());
    }

    /** The pids of the demo app and Portico, while they run. */
    private List<Long> servers = List.of();

    /** A direct-vs-proxied comparison, with what each server process spent per response on each side. */
    private Scenario compared(String name, BenchOptions options, String a, String b, List<String> notes,
            CompareMetric... metrics) throws InterruptedException {
        return compared(name, options, a, b, notes, "direct", "proxied", metrics);
    }

    private Scenario compared(String name, BenchOptions options, String a, String b, List<String> notes,
            String nameA, String nameB, CompareMetric... metrics) throws InterruptedException {
        ServerCpu cpu = new ServerCpu(List.of("demo app", "Portico"), servers.get(0), servers.get(1));
        CompareResult result = new CompareRun(options, RequestTarget.of(a, "GET", null),
                RequestTarget.of(b, "GET", null), rounds, loops, null, notices).observedBy(cpu)
                .run(nameA, nameB);
        List<String> all = new ArrayList<>(notes);
        String note = cpu.note(result);
        if (note != null) {
            all.add(note);
        }
        return scenario(name, result, all, metrics);
    }

    /**
     * An HTML page of about {@code size} bytes that compresses as a real one does (markup repeated with varying
     * text: gzip -5 makes it about a fifth), the same every run.
     */
    static String htmlPage(int size) {
        java.util.Random random = new java.util.Random(20);
        String[] words = {"portico", "front", "tier", "static", "proxy", "upstream", "cache", "gzip", "page",
            "request", "response", "header", "body", "stream", "event", "loop"};
        StringBuilder sb = new StringBuilder("<!doctype html>\n<html><head><title>Portico</title>"
                + "<link rel=\"stylesheet\" href=\"/static/site.css\"></head>\n<body>\n<ul class=\"items\">\n");
        int item = 0;
        while (sb.length() < size - 40) {
            sb.append("<li class=\"item\" id=\"item-").append(item++).append("\"><a href=\"/items/")
                    .append(random.nextInt(100_000)).append("\">");
            for (int w = 0; w < 6; w++) {
                sb.append(words[random.nextInt(words.length)]).append(' ');
            }
            sb.append("</a> <span class=\"price\">").append(random.nextInt(10_000) / 100.0).append("</span></li>\n");
        }
        sb.append("</ul>\n</body></html>\n");
        return sb.toString();
    }

    /** Others send 50 req/s to / while 50 clients trickle never-ending headers at the same server. */
    private CompareResult slowClients(int app, int portico) throws InterruptedException {
        List<BenchResult> direct = new ArrayList<>();
        List<BenchResult> proxied = new ArrayList<>();
        BenchOptions others = base.withLoad(10, 50, base.duration());
        for (int round = 1; round <= rounds; round++) {
            direct.add(othersWithSlowClients(others, app));
            proxied.add(othersWithSlowClients(others, portico));
        }
        return new CompareResult("direct", "proxied", direct, proxied, null);
    }

    private BenchResult othersWithSlowClients(BenchOptions others, int port) throws InterruptedException {
        try (SlowClients slow = new SlowClients("127.0.0.1", port, "/", 50, 500)) {
            if (notices != null) {
                notices.printf("slow-clients scenario: %d slow connections to port %d%n", slow.opened(), port);
                notices.flush();
            }
            return new BenchRun(others.withTargets(List.of(RequestTarget.of("http://127.0.0.1:" + port + "/", "GET",
                    null))), loops, null, notices).run();
        }
    }

    /** Others send 50 req/s to / while a flood at 1000 req/s (10x the limit) hits / (A) or /limited/ (B). */
    private CompareResult flood(String proxied) throws InterruptedException, IOException {
        List<BenchResult> without = new ArrayList<>();
        List<BenchResult> with = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            without.add(othersDuringFlood(proxied + "/", proxied + "/"));
            with.add(othersDuringFlood(proxied + "/", proxied + "/limited/"));
        }
        return new CompareResult("flood on / (no limit)", "flood on /limited/ (100r/s)", without, with, null);
    }

    private BenchResult othersDuringFlood(String othersUrl, String floodUrl) throws InterruptedException, IOException {
        Duration d = base.duration();
        BenchOptions flood = base.withTargets(List.of(RequestTarget.of(floodUrl, "GET", null)))
                .withLoad(20, 1000, d.plusSeconds(2))
                .withSourceIps(List.of(InetAddress.getByAddress(new byte[] {127, 0, 0, 2})));
        BenchOptions others = base.withTargets(List.of(RequestTarget.of(othersUrl, "GET", null)))
                .withLoad(10, 50, d);
        if (notices != null) {
            notices.printf("flood scenario: others on %s while the flood hits %s%n", othersUrl, floodUrl);
            notices.flush();
        }
        try (ClientLoops floodLoops = new ClientLoops(1)) {
            Thread floodThread = new Thread(() -> {
                try {
                    new BenchRun(flood, floodLoops, null, new PrintWriter(Writer.nullWriter())).run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "bench-flood");
            floodThread.start();
            BenchResult result = new BenchRun(others, loops, null, notices).run();
            floodThread.join();
            return result;
        }
    }

    /** The text table of every scenario: its metrics, headline, notes and assertion results. */
    public static String table(List<Scenario> rows) {
        StringBuilder sb = new StringBuilder();
        // a note every scenario carries (the shared cores) is said once, above the table
        List<String> common = rows.isEmpty() ? List.of() : rows.get(0).notes().stream()
                .filter(n -> rows.stream().allMatch(r -> r.notes().contains(n))).toList();
        for (String note : common) {
            sb.append("note: ").append(note).append("\n\n");
        }
        sb.append(CompareReport.header());
        for (Scenario row : rows) {
            CompareResult c = row.result();
            sb.append('\n').append(row.name()).append(String.format(Locale.ROOT, "  [A: %s, B: %s]%n",
                    c.nameA(), c.nameB()));
            for (CompareMetric m : row.metrics()) {
                sb.append("  ").append(CompareReport.row(c, m, 20));
            }
            sb.append("  ").append(c.refusal() != null ? CompareReport.headline(c) : row.metrics().stream()
                    .limit(2).map(m -> m.label().replaceAll(" \\(.*", "") + " " + CompareReport.times(c.ratio(m)))
                    .collect(Collectors.joining(", ", "gain: ", ""))).append('\n');
            for (String note : row.notes()) {
                if (!common.contains(note)) {
                    sb.append("  note: ").append(note).append('\n');
                }
            }
            for (AssertionResult a : row.assertions()) {
                sb.append("  ").append(a.line()).append('\n');
            }
        }
        return sb.toString();
    }
}
