package io.portico.route;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The longest-prefix lookup of the {@code path} locations: a radix tree (edges labelled with strings, children
 * sorted by their first character), built once. A lookup walks the path once, comparing each edge's label in
 * place, so its cost grows with the path's length, not with the number of locations (nginx's static location
 * tree does the same job), and it allocates nothing.
 *
 * @param <T> what a prefix maps to
 */
final class PrefixTree<T> {
    private final Node<T> root;

    private PrefixTree(Node<T> root) {
        this.root = root;
    }

    private static final class Node<T> {
        /** The characters from the parent to this node; "" for the root. */
        String label;
        T value;
        /** Frozen: children sorted by their label's first character, which {@link #firsts} holds. */
        char[] firsts = new char[0];
        List<Node<T>> building = new ArrayList<>();
        Node<T>[] children;

        Node(String label, T value) {
            this.label = label;
            this.value = value;
        }

        Node<T> child(char first) {
            int i = Arrays.binarySearch(firsts, first);
            return i < 0 ? null : children[i];
        }
    }

    /** A tree of {@code prefixes} and their {@code values}; the first of two equal prefixes wins. */
    static <T> PrefixTree<T> of(List<String> prefixes, List<T> values) {
        Node<T> root = new Node<>("", null);
        for (int i = 0; i < prefixes.size(); i++) {
            insert(root, prefixes.get(i), values.get(i));
        }
        freeze(root);
        return new PrefixTree<>(root);
    }

    private static <T> void insert(Node<T> root, String key, T value) {
        Node<T> node = root;
        int i = 0;
        while (true) {
            if (i == key.length()) {
                if (node.value == null) {
                    node.value = value;
                }
                return;
            }
            Node<T> next = null;
            for (Node<T> c : node.building) {
                if (c.label.charAt(0) == key.charAt(i)) {
                    next = c;
                    break;
                }
            }
            if (next == null) {
                node.building.add(new Node<>(key.substring(i), value));
                return;
            }
            int common = commonPrefix(next.label, key, i);
            if (common < next.label.length()) {
                // Split the edge: next keeps the tail of its label under a new node holding the shared part.
                Node<T> tail = new Node<>(next.label.substring(common), next.value);
                tail.building = next.building;
                next.label = next.label.substring(0, common);
                next.value = null;
                next.building = new ArrayList<>(List.of(tail));
            }
            node = next;
            i += common;
        }
    }

    private static int commonPrefix(String label, String key, int from) {
        int n = Math.min(label.length(), key.length() - from);
        int k = 0;
        while (k < n && label.charAt(k) == key.charAt(from + k)) {
            k++;
        }
        return k;
    }

    @SuppressWarnings("unchecked")
    private static <T> void freeze(Node<T> node) {
        node.building.sort((a, b) -> Character.compare(a.label.charAt(0), b.label.charAt(0)));
        node.children = node.building.toArray(new Node[0]);
        node.firsts = new char[node.children.length];
        for (int i = 0; i < node.children.length; i++) {
            node.firsts[i] = node.children[i].label.charAt(0);
            freeze(node.children[i]);
        }
        node.building = null;
    }

    /** The value of the longest prefix of {@code path}, or null when none is a prefix of it. */
    T longest(String path) {
        Node<T> node = root;
        T best = root.value;
        int i = 0;
        int n = path.length();
        while (i < n) {
            Node<T> next = node.child(path.charAt(i));
            if (next == null || !path.startsWith(next.label, i)) {
                break;
            }
            i += next.label.length();
            node = next;
            if (node.value != null) {
                best = node.value;
            }
        }
        return best;
    }
}
