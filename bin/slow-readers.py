#!/usr/bin/env python3
"""Slow downloaders: N clients, each fetching PATH over and over at RATE bytes/s until SECONDS pass.

  slow-readers.py HOST PORT PATH N RATE SECONDS

Each client is a thread with a blocking socket whose receive buffer is 16 KiB (a 100 KiB/s link at ~100 ms RTT
has a 10 KiB window: a real slow client does not take a megabyte into its kernel buffer at once) and whose MSS is
Ethernet's 1448 bytes, reading what has arrived (at most 32 KiB at a time) and sleeping to keep to RATE. Prints
one line: downloads completed, cut at the deadline, failed, and the mean rate per download."""
import socket
import sys
import threading
import time

host, port, path, n, rate, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
deadline = time.monotonic() + secs
request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
lock = threading.Lock()
stats = {"completed": 0, "cut": 0, "failed": 0, "rates": []}


def download():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    # Loopback's MSS is 64 KiB, which makes the server's send buffer autotune to megabytes: with it a 1 MiB
    # response vanishes into the kernel at once and the app server is free however slow the client, which no
    # real slow link allows. With an Ethernet MSS the sender's buffer grows as it would on a real path.
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1448)
    s.settimeout(0.5)  # short, so that a client still waiting at the deadline stops then
    try:
        while True:
            try:
                s.connect((host, port))
                break
            except socket.timeout:
                if time.monotonic() > deadline:
                    return "cut", 0
        s.sendall(request)
        start = None  # the rate counts from the first byte: a client that waited for the server is no faster
        got = 0
        length = None
        head = b""
        while True:
            if time.monotonic() > deadline:
                return "cut", 0
            try:
                b = s.recv(32768)
            except socket.timeout:
                continue
            if not b:
                break
            if start is None:
                start = time.monotonic()
            got += len(b)
            if length is None:
                head += b
                end = head.find(b"\r\n\r\n")
                if end >= 0:
                    status = head.split(b" ", 2)[1]
                    if status != b"200":
                        return "failed", 0
                    for line in head[:end].split(b"\r\n")[1:]:
                        k, _, v = line.partition(b":")
                        if k.strip().lower() == b"content-length":
                            length = int(v) + end + 4
                    head = b""
            ahead = got / rate - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)
        if length is None or got < length:
            return "failed", 0
        if start is None:
            return "failed", 0
        return "completed", got / (time.monotonic() - start)
    except OSError:
        return "failed", 0
    finally:
        s.close()


def client():
    while time.monotonic() < deadline:
        outcome, r = download()
        with lock:
            stats[outcome] += 1
            if r:
                stats["rates"].append(r)


threads = [threading.Thread(target=client, daemon=True) for _ in range(n)]
for t in threads:
    t.start()
for t in threads:
    t.join()
rates = stats["rates"]
mean = sum(rates) / len(rates) / 1024 if rates else 0
print(f"slow readers: {stats['completed']} downloads completed, {stats['cut']} cut at the deadline, "
      f"{stats['failed']} failed, mean {mean:.0f} KiB/s per download")
