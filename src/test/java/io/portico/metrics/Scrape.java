package io.portico.metrics;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One GET of a metrics location, parsed as the Prometheus text format into samples: {@code name{labels}} to value,
 * with the labels in name order (the library writes them so), so a test may name them in any order.
 */
public record Scrape(Response response, Map<String, Double> samples) {

    public static Scrape of(int port, String path) {
        try (RawHttp http = new RawHttp(port)) {
            Response response = http.send("GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n").read();
            return new Scrape(response, parse(response.text()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every sample line; fails on a line that is not {@code name[{labels}] value}. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space < 0 || !line.matches("[a-zA-Z_:][a-zA-Z0-9_:]*(\\{.*})? \\S+")) {
                throw new AssertionError("not a Prometheus sample line: " + line);
            }
            samples.put(normalize(line.substring(0, space)), Double.parseDouble(line.substring(space + 1)));
        }
        return samples;
    }

    /** {@code name{b="2",a="1"}} as {@code name{a="1",b="2"}}. Label values here hold no commas or quotes. */
    static String normalize(String sample) {
        int brace = sample.indexOf('{');
        if (brace < 0) {
            return sample;
        }
        Map<String, String> labels = new TreeMap<>();
        String inner = sample.substring(brace + 1, sample.length() - 1);
        for (String pair : splitPairs(inner)) {
            int eq = pair.indexOf('=');
            labels.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        StringBuilder b = new StringBuilder(sample.substring(0, brace)).append('{');
        labels.forEach((k, v) -> b.append(b.charAt(b.length() - 1) == '{' ? "" : ",").append(k).append('=').append(v));
        return b.append('}').toString();
    }

    private static List<String> splitPairs(String inner) {
        List<String> out = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (c == '"' && (i == 0 || inner.charAt(i - 1) != '\\')) {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                out.add(inner.substring(start, i));
                start = i + 1;
            }
        }
        if (start < inner.length()) {
            out.add(inner.substring(start));
        }
        return out;
    }

    /** The value of {@code sample} (labels in any order), failing when the scrape does not have it. */
    public long get(String sample) {
        return (long) value(sample);
    }

    public double value(String sample) {
        Double value = samples.get(normalize(sample));
        if (value == null) {
            throw new AssertionError("no sample " + sample + " in\n" + response.text());
        }
        return value;
    }

    /** The value of {@code sample}, or 0 when the scrape does not have it (a child not created yet). */
    public double valueOrZero(String sample) {
        return samples.getOrDefault(normalize(sample), 0.0);
    }
}
