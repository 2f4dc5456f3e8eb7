package io.portico.staticfile;

/**
 * What a file request is answered with: the file as named, or one of its precompressed variants.
 *
 * @param original the file as named; its Content-Type is the response's whatever the variant
 * @param coding the variant's coding, or null to send the original
 * @param variant the variant's metadata, or null
 * @param vary whether the file has any variant, so caches must key on Accept-Encoding
 */
record Representation(FileMeta original, ContentCoding coding, FileMeta variant, boolean vary) {

    static Representation plain(FileMeta file) {
        return new Representation(file, null, null, false);
    }

    /** The file whose bytes, size and validators are sent. */
    FileMeta file() {
        return variant == null ? original : variant;
    }
}
