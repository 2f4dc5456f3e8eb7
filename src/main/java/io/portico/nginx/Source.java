package io.portico.nginx;

/** Where a directive was written: the file as shown in messages (relative to the main file's folder) and line. */
record Source(String file, int line) {
    @Override
    public String toString() {
        return file + ":" + line;
    }
}
