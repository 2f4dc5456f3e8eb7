#!/usr/bin/env python3
"""Per-request server latency from a loopback capture: request seen on the wire -> response seen on the wire.

Reads a classic pcap (tcpdump -w, Ethernet link type, as on lo) of HTTP/1.1 keep-alive traffic to PORT, one
request in flight per connection (wrk, ab -k). Prints the distribution, the first request of each connection
apart (it pays for a connection that starts cold), and the longest ones with their time from the capture's start.
Usage: pcap-latency.py FILE PORT
"""
import struct
import sys


def packets(path):
    with open(path, 'rb') as f:
        magic, _, _, _, _, _, link = struct.unpack('<IHHiIII', f.read(24))
        if link != 1:
            sys.exit(f'{path}: link type {link}, expected Ethernet (capture on lo)')
        scale = 1e9 if magic == 0xa1b23c4d else 1e6
        while True:
            header = f.read(16)
            if len(header) < 16:
                return
            sec, frac, length, _ = struct.unpack('<IIII', header)
            frame = f.read(length)
            ip = frame[14:]
            if len(ip) < 20 or ip[0] >> 4 != 4:
                continue
            ihl = (ip[0] & 15) * 4
            total = struct.unpack('>H', ip[2:4])[0]
            tcp = ip[ihl:]
            if len(tcp) < 20:
                continue
            sport, dport = struct.unpack('>HH', tcp[:4])
            payload = total - ihl - (tcp[12] >> 4) * 4
            yield sec + frac / scale, sport, dport, payload


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    pending, latencies, firsts, seen, start = {}, [], [], set(), None
    for t, sport, dport, payload in packets(path):
        start = t if start is None else start
        if payload <= 0:
            continue
        if dport == port:
            pending.setdefault(sport, t)  # a request's first segment
        elif sport == port and dport in pending:
            latency = t - pending.pop(dport)  # a response's first segment
            latencies.append((latency, t - start))
            if dport not in seen:
                seen.add(dport)
                firsts.append(latency)
    if not latencies:
        sys.exit('no request/response pairs on port %d' % port)
    ms = sorted(l for l, _ in latencies)
    n = len(ms)

    def q(p):
        return ms[min(n - 1, int(p * n))] * 1e3

    print('requests %d: p50 %.3f ms, p90 %.3f, p99 %.3f, p99.9 %.3f, p99.99 %.3f, max %.3f' % (
        n, q(.5), q(.9), q(.99), q(.999), q(.9999), ms[-1] * 1e3))
    firsts.sort()
    print('first request of each of %d connections: median %.2f ms, max %.2f ms' % (
        len(firsts), firsts[len(firsts) // 2] * 1e3, firsts[-1] * 1e3))
    worst = sorted(latencies, reverse=True)[:5]
    print('longest: ' + ', '.join('%.2f ms at +%.3f s' % (l * 1e3, at) for l, at in worst))


if __name__ == '__main__':
    main()
