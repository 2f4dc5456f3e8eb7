package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.FileRegion;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files of {@code sendfile-from} and up go out by sendfile from a descriptor the cache keeps open: one descriptor
 * for every response of a file, closed only once the cache has dropped it and the last region sent from it is out,
 * and a changed file served from a new descriptor (never the old bytes past revalidate).
 */
class KeptDescriptorTest {
    @TempDir
    Path site;

    private PorticoServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aDescriptorClosesWhenTheCacheAndEveryRegionHaveLetGo() throws IOException {
        Path file = Files.write(site.resolve("f.bin"), new byte[100]);
        FileChannel channel = FileChannel.open(file);
        OpenFile open = new OpenFile(channel);
        FileRegion a = open.region(0, 10);
        FileRegion b = open.region(10, 90);
        open.release(); // the cache's count
        assertThat(channel.isOpen()).as("two regions in flight").isTrue();
        a.release();
        assertThat(channel.isOpen()).as("one region in flight").isTrue();
        b.release();
        assertThat(channel.isOpen()).isFalse();
        assertThat(open.region(0, 1)).as("a closed descriptor is never counted up again").isNull();
    }

    @Test
    void responsesShareOneDescriptorAndAChangedFileIsServedFromANewOne() throws Exception {
        byte[] first = bytes(1, 100 * 1024);
        Path file = Files.write(site.resolve("f.bin"), first);
        server = TestServers.start("""
                static.cache { sendfile-from = 64k, max-file-size = 64k, revalidate = 200ms }
                locations = [ { path = "/s/", alias = "%s/" } ]
                """.formatted(site.toString().replace("\\", "/"))); // above the memory cache: io_uring too
        int port = TestServers.port(server);
        try (RawHttp c = new RawHttp(port)) {
            for (int i = 0; i < 20; i++) {
                c.send("GET /s/f.bin HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read().body()).isEqualTo(first);
            }
            c.send("GET /s/f.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=70000-70099\r\n\r\n");
            Response range = c.read();
            assertThat(range.status()).isEqualTo(206);
            assertThat(range.body()).isEqualTo(Arrays.copyOfRange(first, 70000, 70100));
            assertThat(descriptorsOf(file)).as("every response from one kept descriptor").isEqualTo(1);
            assertThat(mappingsOf(file)).as("mapped once on io_uring (OpenFile.mapped), else sent by sendfile")
                    .isEqualTo(server.transport().equals("io_uring") ? 1 : 0);

            // replaced as a deploy does (a new file renamed over the old name): the old inode lives on only
            // through descriptors still open on it
            byte[] second = bytes(2, 100 * 1024 + 7);
            Path next = Files.write(site.resolve("f.bin.new"), second);
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                c.send("GET /s/f.bin HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read().body()).isEqualTo(second);
            });
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                c.send("GET /s/f.bin HTTP/1.1\r\nHost: x\r\n\r\n"); // keeps the cache's upkeep running
                assertThat(c.read().body()).isEqualTo(second);
                assertThat(deletedDescriptorsOf(file)).as("the replaced file's descriptor is closed").isZero();
                assertThat(deletedMappingsOf(file)).as("and its mapping (io_uring) is unmapped").isZero();
            });
        }
    }

    /**
     * A file the memory cache takes (up to max-file-size) goes out from memory on io_uring, where a file region
     * costs a pipe and two splices per chunk (FileSender.splicesDearly), and from the kept descriptor elsewhere.
     */
    @Test
    void aFileTheMemoryCacheTakesGoesFromMemoryOnIoUringAndFromTheKeptDescriptorElsewhere() throws Exception {
        byte[] body = bytes(3, 100 * 1024);
        Path file = Files.write(site.resolve("m.bin"), body);
        server = TestServers.start("""
                static.cache { sendfile-from = 64k, max-file-size = 256k }
                locations = [ { path = "/s/", alias = "%s/" } ]
                """.formatted(site.toString().replace("\\", "/")));
        try (RawHttp c = new RawHttp(TestServers.port(server))) {
            for (int i = 0; i < 3; i++) {
                c.send("GET /s/m.bin HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read().body()).isEqualTo(body);
            }
            c.send("GET /s/m.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=100-199\r\n\r\n");
            assertThat(c.read().body()).isEqualTo(Arrays.copyOfRange(body, 100, 200));
        }
        boolean uring = server.transport().equals("io_uring");
        assertThat(descriptorsOf(file)).as("descriptors kept open on the file, transport " + server.transport())
                .isEqualTo(uring ? 0 : 1);
    }

    private static byte[] bytes(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** This process's descriptors open on {@code file} as it is now (Linux: /proc/self/fd). */
    private static long descriptorsOf(Path file) throws IOException {
        String real = file.toRealPath().toString();
        return links().filter(real::equals).count();
    }

    /** This process's descriptors still open on a file that was at {@code file} and has been replaced. */
    private static long deletedDescriptorsOf(Path file) throws IOException {
        String deleted = file.toRealPath() + " (deleted)";
        return links().filter(deleted::equals).count();
    }

    /** This process's mappings of {@code file} as it is now (/proc/self/maps). */
    private static long mappingsOf(Path file) throws IOException {
        String real = file.toRealPath().toString();
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.filter(l -> l.endsWith(" " + real)).count();
        }
    }

    /** This process's mappings of a file that was at {@code file} and has been replaced (/proc/self/maps). */
    private static long deletedMappingsOf(Path file) throws IOException {
        String deleted = file.toRealPath() + " (deleted)";
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.filter(l -> l.endsWith(deleted)).count();
        }
    }

    private static Stream<String> links() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    return ""; // closed while listed
                }
            }).toList().stream();
        }
    }
}
