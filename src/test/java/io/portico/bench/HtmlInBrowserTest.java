package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each kind of HTML report, loaded by headless Chromium (Debian's {@code chromium}; skipped where it is not
 * installed): the page loads, the DOM Chromium built has every chart with its data, and a screenshot lands in
 * target/ (out of the repository) for whoever wants to look.
 */
class HtmlInBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static BenchResult result;

    @BeforeAll
    static void run() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.OK, "0123456789", 200, 0)) {
            result = Runs.run(Runs.options(server.url("/"), 2, 0, Duration.ofMillis(2500), 0, Duration.ofSeconds(2)));
        }
    }

    @Test
    void aRunsReportLoadsWithEveryChartDrawn(@TempDir Path dir) throws Exception {
        String html = HtmlReport.render(result, "portico bench -t 2.5s 'http://127.0.0.1/'",
                List.of(Assertion.parse("p99<10s").check(result)));
        load(html, dir, "bench-report.png", 3);
    }

    @Test
    void aComparisonsReportLoadsWithBothRunsOnEveryChart(@TempDir Path dir) throws Exception {
        CompareResult c = new CompareResult("direct", "proxied", List.of(result), List.of(result), null);
        Scenario one = new Scenario("/ direct vs proxied", c, List.of(CompareMetric.values()),
                List.of(SharedMachine.proxied(2)), List.of())
                .checked(List.of(CompareAssertion.parse("ratio(rps)>=0.9")));
        String dom = load(HtmlReport.renderCompare(List.of(one, one), "portico bench compare"), dir,
                "compare-report.png", 6);
        assertThat(dom).contains("A: direct p99", "B: proxied p99");
    }

    /** Loads {@code html} in Chromium; returns the DOM it built after checking {@code charts} charts with data. */
    private static String load(String html, Path dir, String screenshot, int charts) throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "no Chromium at " + CHROMIUM);
        Path page = dir.resolve("report.html");
        Files.writeString(page, html, StandardCharsets.UTF_8);
        Path shot = Path.of("target", screenshot).toAbsolutePath();
        Files.deleteIfExists(shot);
        String dom = chromium(dir, "--dump-dom", page.toUri().toString());
        // the DOM Chromium built (HTML serialization, not XML): every chart there, every line with points
        String[] svgs = dom.split("<svg ", -1);
        assertThat(svgs).hasSize(charts + 1);
        for (int i = 1; i < svgs.length; i++) {
            Matcher points = Pattern.compile("<polyline [^>]*points=\"([^\"]*)\"").matcher(svgs[i]);
            int lines = 0;
            while (points.find()) {
                assertThat(points.group(1).trim().split(" ")).hasSizeGreaterThan(1);
                lines++;
            }
            assertThat(lines).as("lines in chart " + i).isPositive();
        }
        HtmlPage.parse(html).assertEveryChartHasDataAndRoundTicksFromZero();
        chromium(dir, "--window-size=1280,2600", "--screenshot=" + shot, page.toUri().toString());
        assertThat(shot).exists();
        assertThat(Files.size(shot)).isGreaterThan(10_000);
        return dom;
    }

    private static String chromium(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--user-data-dir=" + dir.resolve("profile")));
        cmd.addAll(List.of(args));
        Path stdout = dir.resolve("chromium.out");
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile())
                .redirectError(dir.resolve("chromium.err").toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 90 s: " + cmd);
        }
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("chromium.err"))).isZero();
        return Files.readString(stdout);
    }
}
