#!/usr/bin/env python3
"""An app server for bench-proxy-gib: PUT /upload reads the whole body (Content-Length) and answers its SHA-256
in hex; GET /download sends FILE with sendfile. Threaded, HTTP/1.1 keep-alive.

  gib-upstream.py PORT FILE"""
import hashlib
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, path = int(sys.argv[1]), sys.argv[2]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_PUT(self):
        left = int(self.headers["Content-Length"])
        digest = hashlib.sha256()
        while left > 0:
            b = self.rfile.read(min(left, 1 << 20))
            if not b:
                break
            digest.update(b)
            left -= len(b)
        body = (digest.hexdigest() + "\n").encode()
        self.send_response(200 if left == 0 else 400)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        self.wfile.flush()
        with open(path, "rb") as f:
            self.connection.sendfile(f)


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
