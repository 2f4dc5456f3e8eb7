"""The latency of a request that finds the server idle: for each URL in turn, PAUSE seconds of quiet, then one
request on a new connection, timed from connect to the first bytes of the response; ROUNDS times, the URLs
interleaved so that each waits as long as the others. Prints one line per URL: median and max in ms.

A server busy a moment ago answers in tens of microseconds; after a pause, on a VM whose host reclaims or
remaps idle memory, the first request pays for every page it touches again (docs/benchmarks.md, eighth session).
    idle-latency.py PAUSE ROUNDS URL...       e.g. idle-latency.py 2 7 http://127.0.0.1:8080/static/1k.txt
"""
import socket
import statistics
import sys
import time
from urllib.parse import urlsplit


def one(url):
    parts = urlsplit(url)
    request = ('GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' % (
        parts.path or '/', parts.netloc)).encode('ascii')
    start = time.perf_counter()
    with socket.create_connection((parts.hostname, parts.port or 80), timeout=10) as s:
        s.sendall(request)
        head = s.recv(65536)
        first = time.perf_counter()
        while s.recv(65536):
            pass  # read to the close: the response is whole, and the next round starts from a quiet server
    if not head.startswith(b'HTTP/1.1 2'):
        sys.exit('%s answered %r' % (url, head[:40]))
    return (first - start) * 1e3


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    pause, rounds, urls = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    times = {url: [] for url in urls}
    for _ in range(rounds):
        for url in urls:
            time.sleep(pause)
            times[url].append(one(url))
    for url in urls:
        print('%s median %.2f ms max %.2f ms' % (url, statistics.median(times[url]), max(times[url])))


if __name__ == '__main__':
    main()
