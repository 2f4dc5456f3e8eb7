/*
 * What touching memory costs after a pause, without a JVM or a server: the cause behind the "first request after
 * idle" figures in docs/benchmarks.md (eighth session). Allocates MIB MiB, touches all of it, then ROUNDS times:
 * sleeps PAUSE seconds and reads one byte from each of PAGES random 4 KiB pages (PAGES = 0: every page, in order),
 * then the same pages again; prints the cost per page of both passes.
 *   gcc -O2 -o /tmp/cold-pages bin/lib/cold-pages.c && /tmp/cold-pages 1024 500 2 5
 * On the benchmark VM: ~60 us a page after 2 s (random pages), 1-2 us after 20 ms, 0.01-0.02 us for the second
 * pass: the host makes memory left alone for a second or so expensive to touch again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: cold-pages MIB PAGES PAUSE_SECONDS ROUNDS\n");
        return 2;
    }
    size_t bytes = (size_t) atoi(argv[1]) << 20, pages = bytes / 4096;
    size_t touched = atoi(argv[2]) > 0 ? (size_t) atoi(argv[2]) : pages;
    double pause = atof(argv[3]);
    int rounds = atoi(argv[4]);
    volatile char *memory = malloc(bytes);
    size_t *order = malloc(touched * sizeof(size_t));
    if (memory == NULL || order == NULL) {
        perror("malloc");
        return 1;
    }
    memset((char *) memory, 1, bytes);
    srand(42);
    for (size_t i = 0; i < touched; i++) {
        order[i] = touched == pages ? i : ((size_t) rand() * 7919u) % pages;
    }
    long sum = 0;
    for (int r = 0; r < rounds; r++) {
        usleep((useconds_t) (pause * 1e6));
        double t0 = now_us();
        for (size_t i = 0; i < touched; i++) sum += memory[order[i] * 4096];
        double t1 = now_us();
        for (size_t i = 0; i < touched; i++) sum += memory[order[i] * 4096 + 64];
        double t2 = now_us();
        printf("after %.2f s: %zu pages, first pass %.2f us/page, second pass %.2f us/page\n", pause, touched,
                (t1 - t0) / touched, (t2 - t1) / touched);
    }
    return sum == 42; /* keeps the reads */
}
