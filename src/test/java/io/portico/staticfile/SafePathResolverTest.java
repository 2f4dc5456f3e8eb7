package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.config.StaticConfig.FollowSymlinks;
import io.portico.staticfile.SafePathResolver.Resolution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SafePathResolverTest {
    @TempDir
    Path tmp;

    Path root;
    Path outside;

    @BeforeEach
    void files() throws IOException {
        root = Files.createDirectories(tmp.resolve("root"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "secret");
        Files.writeString(root.resolve("inside.txt"), "inside");
        Files.createDirectories(root.resolve("a"));
        Files.writeString(root.resolve("a/c.txt"), "c");
    }

    /** Every attack is refused (400) or stays inside; none yields a path outside the directory. */
    @ParameterizedTest
    @ValueSource(strings = {
        "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/a/..%2fsecret.txt", "/..\\secret.txt",
        "/%5c..%5csecret.txt", "/secret.txt%00.html", "/%00", "/%c0%ae%c0%ae/secret.txt", "/%e0%80%ae%e0%80%ae/x",
        "/%c0%af", "/a/b/../../../secret.txt", "/..", "/%", "/%zz", "/%4", "/%ff", "/a%0d%0aSet-Cookie:x", "relative",
        "", "/a/%2e%2e/%2e%2e/outside/secret.txt", "/.%2e/outside/secret.txt", "/%2e./outside/secret.txt"
    })
    void refusesTraversalWithBadRequest(String raw) {
        Resolution resolution = new SafePathResolver(root, null, false).resolve(raw);
        assertThat(resolution).isInstanceOf(Resolution.Rejected.class);
        assertThat(((Resolution.Rejected) resolution).status().code()).isEqualTo(400);
    }

    @ParameterizedTest
    @CsvSource({
        "/a/./b/../c.txt, a/c.txt",
        "//a//c.txt, a/c.txt",
        "/%252e%252e/secret.txt, %2e%2e/secret.txt",
        "/caf%C3%A9.txt, café.txt",
        "/a+b%20c, a+b c",
        "/a/.., ''",
        "/, ''",
    })
    void normalizesToARelativePathInside(String raw, String relative) {
        SafePathResolver resolver = new SafePathResolver(root, null, false);
        Resolution resolution = resolver.resolve(raw);
        assertThat(resolution).isInstanceOf(Resolution.Found.class);
        Resolution.Found found = (Resolution.Found) resolution;
        assertThat(found.relative()).isEqualTo(relative);
        assertThat(resolver.file(found.relative())).isEqualTo(relative);
        assertThat(resolver.path(resolver.file(found.relative())).startsWith(root)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/.env", "/.git/config", "/a/.hidden/x", "/%2egit/config", "/...", "/a/.htpasswd"})
    void hidesDotfiles(String raw) {
        Resolution resolution = new SafePathResolver(root, null, false).resolve(raw);
        assertThat(resolution)
                .isEqualTo(new Resolution.Rejected(io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND));
        assertThat(new SafePathResolver(root, null, true).resolve(raw)).isInstanceOf(Resolution.Found.class);
    }

    /** Random paths of dot segments, slashes and escapes: never outside, never a dot or empty segment left. */
    @Test
    void randomPathsNeverLeaveTheDirectory() {
        String[] parts = {"a", "b", ".", "..", "/", "//", "%2e", "%2E%2e", ".a", "a.", "%2f", "\\", "%00", "%c3%a9"};
        java.util.Random random = new java.util.Random(42);
        SafePathResolver resolver = new SafePathResolver(root, "/a/", true);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder raw = new StringBuilder("/");
            for (int k = random.nextInt(8); k >= 0; k--) {
                raw.append(parts[random.nextInt(parts.length)]);
            }
            if (resolver.resolve(raw.toString()) instanceof Resolution.Found found && !found.relative().isEmpty()) {
                assertThat(("/" + found.relative() + "/").split("/", -1)).as(raw.toString())
                        .doesNotContain(".", "..").satisfies(segments -> {
                            for (int k = 1; k < segments.length - 1; k++) {
                                assertThat(segments[k]).as(raw.toString()).isNotEmpty();
                            }
                        });
                assertThat(resolver.path(resolver.file(found.relative())).startsWith(root)).as(raw.toString()).isTrue();
            }
        }
    }

    @Test
    void trailingSlashIsKept() {
        SafePathResolver resolver = new SafePathResolver(root, null, false);
        assertThat(resolver.resolve("/a/")).isEqualTo(new Resolution.Found("a", true, "a"));
        assertThat(resolver.resolve("/a")).isEqualTo(new Resolution.Found("a", false, "a"));
        assertThat(resolver.resolve("/a/.")).isEqualTo(new Resolution.Found("a", true, "a"));
    }

    @ParameterizedTest
    @CsvSource({
        "/static/, /static/a/c.txt, a/c.txt",
        "/static/, /static/, ''",
        "/static/, /static, ''",
        "/static, /static/a/c.txt, a/c.txt",
        "/, /a/c.txt, a/c.txt",
    })
    void aliasStripsTheLocationPrefix(String prefix, String raw, String relative) {
        Resolution resolution = new SafePathResolver(root, prefix, false).resolve(raw);
        assertThat(resolution).isInstanceOf(Resolution.Found.class);
        assertThat(((Resolution.Found) resolution).relative()).isEqualTo(relative);
    }

    @ParameterizedTest
    @CsvSource({
        "/static, /static../outside/secret.txt, 404",
        "/static, /staticfoo/x, 404",
        "/static/, /static/../outside/secret.txt, 404",
        "/static/, /static/%2e%2e/inside.txt, 404",
        "/static/, /static/../../outside/secret.txt, 400",
        "/static/, /other/a/c.txt, 404",
    })
    void aliasNeverReachesASibling(String prefix, String raw, int status) {
        Resolution resolution = new SafePathResolver(root, prefix, false).resolve(raw);
        assertThat(resolution).isInstanceOf(Resolution.Rejected.class);
        assertThat(((Resolution.Rejected) resolution).status().code()).isEqualTo(status);
    }

    @ParameterizedTest
    @ValueSource(strings = {"../outside/secret.txt", "/../x", "a/../../x", "a\\..\\..\\x", ".env"})
    void fileRefusesCandidatesThatLeave(String candidate) {
        assertThat(new SafePathResolver(root, null, false).file(candidate)).isNull();
    }

    @Test
    void fileJoinsUnderTheDirectory() {
        SafePathResolver resolver = new SafePathResolver(root, null, false);
        assertThat(resolver.path(resolver.file("/a/c.txt"))).isEqualTo(root.resolve("a/c.txt"));
        assertThat(resolver.path(resolver.file("/"))).isEqualTo(root);
        assertThatThrownBy(() -> resolver.path("../x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void encodeRoundTripsThroughDecode() {
        String name = "a b/ü?#%&<.txt";
        assertThat(PercentCoding.encode(name)).doesNotContain(" ", "?", "#", "<").startsWith("a%20b/");
        assertThat(PercentCoding.decode("/" + PercentCoding.encode(name).replace("/", "-")))
                .isEqualTo("/" + name.replace("/", "-"));
    }

    @Test
    void symlinkPolicies() throws IOException {
        Path linkIn = Files.createSymbolicLink(root.resolve("link-in"), root.resolve("inside.txt"));
        Path linkOut = Files.createSymbolicLink(root.resolve("link-out"), outside.resolve("secret.txt"));
        Path dirOut = Files.createSymbolicLink(root.resolve("dir-out"), outside);

        assertThat(SafePathResolver.followable(root, linkIn, FollowSymlinks.INSIDE_ROOT))
                .isEqualTo(root.resolve("inside.txt").toRealPath());
        assertThatThrownBy(() -> SafePathResolver.followable(root, linkOut, FollowSymlinks.INSIDE_ROOT))
                .isInstanceOf(SafePathResolver.SymlinkRefusedException.class);
        assertThatThrownBy(
                () -> SafePathResolver.followable(root, dirOut.resolve("secret.txt"), FollowSymlinks.INSIDE_ROOT))
                .isInstanceOf(SafePathResolver.SymlinkRefusedException.class);

        assertThatThrownBy(() -> SafePathResolver.followable(root, linkIn, FollowSymlinks.NEVER))
                .isInstanceOf(SafePathResolver.SymlinkRefusedException.class);
        assertThat(SafePathResolver.followable(root, root.resolve("inside.txt"), FollowSymlinks.NEVER))
                .isEqualTo(root.resolve("inside.txt").toRealPath());

        assertThat(SafePathResolver.followable(root, linkOut, FollowSymlinks.ALWAYS))
                .isEqualTo(outside.resolve("secret.txt").toRealPath());
        assertThatThrownBy(() -> SafePathResolver.followable(root, root.resolve("missing"), FollowSymlinks.ALWAYS))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void aSymlinkedRootIsNotAnEscape() throws IOException {
        Path rootLink = Files.createSymbolicLink(tmp.resolve("root-link"), root);
        for (FollowSymlinks policy : FollowSymlinks.values()) {
            assertThat(SafePathResolver.followable(rootLink, rootLink.resolve("inside.txt"), policy))
                    .isEqualTo(root.resolve("inside.txt").toRealPath());
        }
    }
}
