package io.portico.staticfile;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.portico.config.LocationConfig;
import io.portico.config.TargetConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.util.function.Function;

/** The responder of one static location: its resolver, try-files plan and headers, over the shared cache. */
final class StaticResponder implements Responder {
    private final TargetConfig.Static target;
    private final SafePathResolver resolver;
    private final TryFiles tryFiles;
    private final FileCache cache;
    private final MediaTypes mediaTypes;
    private final FileSender sender;
    private final Function<String, Responder> namedUpstreams;
    private final HitMemo memo;

    StaticResponder(
            LocationConfig location,
            TargetConfig.Static target,
            FileCache cache,
            MediaTypes mediaTypes,
            CachingHeaders caching,
            Function<String, Responder> namedUpstreams) {
        this.target = target;
        LocationConfig.Match match = location.match();
        boolean strips = target.alias() && match.kind() != LocationConfig.Match.Kind.REGEX;
        this.resolver = new SafePathResolver(target.dir(), strips ? match.value() : null, target.allowDotfiles());
        this.tryFiles = TryFiles.parse(target.tryFiles());
        this.cache = cache;
        this.mediaTypes = mediaTypes;
        this.sender = new FileSender(cache, caching);
        this.namedUpstreams = namedUpstreams;
        this.memo = new HitMemo(cache);
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        StaticExchange exchange = new StaticExchange(this, client, request);
        try {
            exchange.start();
        } catch (RuntimeException e) {
            exchange.failed(e); // e.g. the executor refusing work while the server stops
        }
        return exchange;
    }

    static boolean readOnly(HttpMethod method) {
        return method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD);
    }

    TargetConfig.Static target() {
        return target;
    }

    SafePathResolver resolver() {
        return resolver;
    }

    TryFiles tryFiles() {
        return tryFiles;
    }

    FileCache cache() {
        return cache;
    }

    MediaTypes mediaTypes() {
        return mediaTypes;
    }

    HitMemo memo() {
        return memo;
    }

    FileSender sender() {
        return sender;
    }

    Responder named(String name) {
        return namedUpstreams.apply(name);
    }
}
