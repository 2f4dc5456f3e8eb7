package io.portico.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One request to each side of a comparison before the load: a ratio between two URLs that answer differently
 * (another status, another body size) compares different work, so compare refuses to print one.
 */
public final class ResponseProbe {

    /** What a URL answered: status and body length, or the failure. */
    public record Answer(int status, long bodyLength, String failure) {
        @Override
        public String toString() {
            return failure != null ? "no answer (" + failure + ")" : status + " with " + bodyLength + " body bytes";
        }
    }

    private ResponseProbe() {
    }

    public static Answer probe(RequestTarget target, Duration timeout) {
        return probe(target, timeout, false);
    }

    /** {@code insecure}: an https certificate is not verified (the run's --insecure), host name included. */
    public static Answer probe(RequestTarget target, Duration timeout, boolean insecure) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER);
        if (insecure && target.secure()) {
            builder.sslContext(TrustAll.context());
        }
        HttpClient client = builder.build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(target.uri().toString())).timeout(timeout)
                .method(target.method(), target.body().length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(target.body()))
                .build();
        try {
            HttpResponse<byte[]> r = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(r.statusCode(), r.body().length, null);
        } catch (IOException e) {
            return new Answer(0, 0, String.valueOf(e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, 0, "interrupted");
        }
    }

    /**
     * Trusts any server certificate. An X509ExtendedTrustManager, not a plain one: the JDK then leaves the host name
     * check to it too (a plain one is wrapped and the name still checked), which is what --insecure means.
     */
    private static final class TrustAll extends javax.net.ssl.X509ExtendedTrustManager {

        static javax.net.ssl.SSLContext context() {
            try {
                javax.net.ssl.SSLContext c = javax.net.ssl.SSLContext.getInstance("TLS");
                c.init(null, new javax.net.ssl.TrustManager[] {new TrustAll()}, null);
                return c;
            } catch (java.security.GeneralSecurityException e) {
                throw new IllegalStateException("no TLS context", e);
            }
        }

        @Override
        public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType,
                java.net.Socket socket) {
        }

        @Override
        public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType,
                java.net.Socket socket) {
        }

        @Override
        public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType,
                javax.net.ssl.SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType,
                javax.net.ssl.SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {
        }

        @Override
        public java.security.cert.X509Certificate[] getAcceptedIssuers() {
            return new java.security.cert.X509Certificate[0];
        }
    }

    /** Null when both answered alike, else why a ratio would mislead. */
    public static String difference(Answer a, Answer b) {
        if (a.failure() != null || b.failure() != null) {
            return "a probe request failed: A answered " + a + ", B answered " + b;
        }
        if (a.status() != b.status() || a.bodyLength() != b.bodyLength()) {
            return "A and B answer differently (A: " + a + ", B: " + b + "), so they don't do the same work";
        }
        return null;
    }
}
