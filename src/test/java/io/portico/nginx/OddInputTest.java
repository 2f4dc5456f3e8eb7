package io.portico.nginx;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.ConfigLoader;
import io.portico.config.InvalidConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input that parses but that nginx would refuse or that means nothing (missing arguments, text for numbers):
 * the import never throws, reports the line, and what it does write loads.
 */
class OddInputTest {
    @TempDir
    Path dir;

    @Test
    void oddDirectivesAreReportedAndTheRestStillLoads() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        List<String> bodies = List.of(
                "limit_req zone=z burst=lots;",
                "location /c/ { limit_conn addr many; }",
                "location /r/ { return; }",
                "location /r2/ { return 999; }",
                "location /p/ { proxy_pass; }",
                "location /p2/ { proxy_pass http://; }",
                "location /a/ { allow 10.0.0.0/abc; deny all; }",
                "location /a2/ { allow example.com; deny all; }",
                "location noslash { }",
                "location { }",
                "listen;",
                "server_name;",
                "try_files;",
                "expires;",
                "index;");
        for (String body : bodies) {
            String conf = "http {\n  limit_req_zone $binary_remote_addr zone=z:1m rate=1r/s;\n"
                    + "  limit_conn_zone $binary_remote_addr zone=addr:1m;\n"
                    + "  upstream u { server 127.0.0.1:5000 weight=heavy; server 127.0.0.1:5001; }\n"
                    + "  server {\n    listen 127.0.0.1:8080;\n    root " + www + ";\n    " + body + "\n  }\n}\n";
            NginxImport.Result r = Imports.translate(dir, conf);
            assertThat(Imports.unmapped(r)).as(body).isNotEmpty();
            try {
                ConfigLoader.parse(r.hocon(), dir.resolve("portico.conf").toString(), dir);
            } catch (InvalidConfigException e) {
                // Only input nginx itself refuses may leave a file check refuses, and then with its line reported.
                assertThat(body).as(e.problems() + "\n" + r.hocon()).isIn("try_files;", "index;", "expires;");
            }
        }
    }
}
