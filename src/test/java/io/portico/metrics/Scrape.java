package io.portico.metrics;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** One GET of a metrics location, parsed into samples: {@code name{labels}} to value. */
public record Scrape(Response response, Map<String, Long> samples) {

    public static Scrape of(int port, String path) {
        try (RawHttp http = new RawHttp(port)) {
            Response response = http.send("GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n").read();
            return new Scrape(response, parse(response.text()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, Long> parse(String text) {
        Map<String, Long> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
        }
        return samples;
    }

    /** The value of {@code sample}, failing when the scrape does not have it. */
    public long get(String sample) {
        Long value = samples.get(sample);
        if (value == null) {
            throw new AssertionError("no sample " + sample + " in\n" + response.text());
        }
        return value;
    }
}
