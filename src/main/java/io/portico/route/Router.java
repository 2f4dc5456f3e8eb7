package io.portico.route;

import io.portico.config.LocationConfig;
import io.portico.config.LocationConfig.Match.Kind;
import io.portico.exchange.Responder;
import io.portico.exchange.Route;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Chooses the location of a request path, built once from config. Precedence, as nginx: an {@code exact}
 * match wins; then the {@code regex} locations in list order, the first that matches; then the longest
 * {@code path} prefix. (nginx also lets a prefix marked {@code ^~} skip the regexes; Portico has no such
 * marker: put such a location's paths in a regex-free tree or use exact.) Exact paths are found by hash and
 * prefixes in a {@link PrefixTree}, so neither costs more with more locations; regexes are tried in turn. Matching
 * allocates nothing but what a regex needs.
 */
public final class Router {
    private final Map<String, Route> exact;
    private final List<RegexRoute> regexes;
    private final PrefixTree<Route> prefixTree;
    /** The prefix locations, longest first: for the start-up log only. */
    private final List<Route> prefixes;

    private record RegexRoute(Pattern pattern, Route route) {}

    private Router(Map<String, Route> exact, List<RegexRoute> regexes, List<Route> prefixes) {
        this.exact = exact;
        this.regexes = regexes;
        this.prefixes = List.copyOf(prefixes);
        this.prefixTree = PrefixTree.of(prefixes.stream().map(r -> r.location().match().value()).toList(), prefixes);
    }

    /** @param responders makes the responder of each location (static, proxy, return) */
    public static Router build(List<LocationConfig> locations, Function<LocationConfig, Responder> responders) {
        Map<String, Route> exact = new HashMap<>();
        List<RegexRoute> regexes = new ArrayList<>();
        List<Route> prefixes = new ArrayList<>();
        for (LocationConfig location : locations) {
            Route route = new Route(location, responders.apply(location));
            String value = location.match().value();
            switch (location.match().kind()) {
                case EXACT -> exact.putIfAbsent(value, route);
                case REGEX -> regexes.add(new RegexRoute(Pattern.compile(value), route));
                case PREFIX -> prefixes.add(route);
            }
        }
        prefixes.sort(Comparator.comparingInt((Route r) -> r.location().match().value().length()).reversed());
        return new Router(new HashMap<>(exact), List.copyOf(regexes), prefixes);
    }

    /**
     * The location for {@code path} (a {@link io.portico.config.RequestPath normalized} path, without the query), or
     * null when none matches.
     */
    public Route match(String path) {
        Route r = exact.isEmpty() ? null : exact.get(path);
        if (r != null) {
            return r;
        }
        for (int i = 0; i < regexes.size(); i++) { // by index: an iterator per request, even over none
            RegexRoute rr = regexes.get(i);
            if (rr.pattern.matcher(path).find()) {
                return rr.route;
            }
        }
        return prefixTree.longest(path);
    }

    /** Locations in match order, for the start-up log. */
    public List<Route> routes() {
        List<Route> all = new ArrayList<>(exact.values());
        regexes.forEach(rr -> all.add(rr.route));
        all.addAll(prefixes);
        all.sort(Comparator.comparing((Route r) -> r.location().match().kind() != Kind.EXACT));
        return all;
    }
}
