package io.portico.demo;

/** The {@code /hello/{name}} page, Flask's template rendered by hand, with the name HTML-escaped as Jinja does. */
final class HelloPage {

    private HelloPage() {}

    /** {@code name} is already percent-decoded; {@code null} or empty greets the world. */
    static String render(String name) {
        String greeting = name == null || name.isEmpty() ? "Hello, World!" : "Hello " + escape(name) + "!";
        return "<!doctype html><title>Hello from Portico demo-app</title>\n<h1>" + greeting + "</h1>";
    }

    /** Escapes the five characters that matter in text and quoted attributes, like Jinja's autoescape. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&#34;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
