#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A loopback HTTP file server for the tests of `tgraph data fetch` (tests/app/tst_datafetch.cpp).

Unlike `python3 -m http.server` it answers "Range: bytes=N-" (206 Partial Content), and it can
break a transfer off: --cut NAME:BYTES sends the first GET of NAME with its full Content-Length but
only BYTES bytes of body, then closes the connection. Every request is appended to --log as one
line "METHOD /path RANGE" (RANGE is '-' when absent), so a test can check what was asked for.
--no-range answers every GET with the whole file; --throttle B/S sends bodies slowly (a transfer to interrupt);
--no-head answers HEAD with 405 (a server that does not tell a file's size before sending it).
Binds 127.0.0.1 on a free port, written to --port-file; exits by itself after --lifetime seconds.
"""
import argparse
import http.server
import os
import re
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--cut", action="append", default=[], help="NAME:BYTES")
    ap.add_argument("--lifetime", type=float, default=120)
    ap.add_argument("--no-range", action="store_true", help="ignore Range: always 200 with the whole file")
    ap.add_argument("--throttle", type=int, default=0, help="bytes per second of a GET body (0 = no limit)")
    ap.add_argument("--no-head", action="store_true", help="answer HEAD with 405 Method Not Allowed")
    args = ap.parse_args()

    cuts = {}
    for c in args.cut:
        name, count = c.rsplit(":", 1)
        cuts[name] = int(count)
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def record(self):
            with lock, open(args.log, "a") as f:
                f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Range", "-")))

        def target(self):
            name = self.path.lstrip("/")
            if "/" in name or name.startswith("."):
                return None, name
            path = os.path.join(args.root, name)
            return (path if os.path.isfile(path) else None), name

        def do_HEAD(self):
            self.record()
            if args.no_head:
                self.send_response(405)
                self.send_header("Allow", "GET")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _ = self.target()
            if path is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(os.path.getsize(path)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()

        def do_GET(self):
            self.record()
            path, name = self.target()
            if path is None:
                self.send_error(404)
                return
            size = os.path.getsize(path)
            start, end = 0, size - 1
            status = 200
            rng = None if args.no_range else self.headers.get("Range")
            if rng:
                m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng.strip())
                if not m or int(m.group(1)) >= size:
                    self.send_response(416)
                    self.send_header("Content-Range", "bytes */%d" % size)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start = int(m.group(1))
                if m.group(2):
                    end = min(int(m.group(2)), size - 1)
                status = 206
            length = end - start + 1
            self.send_response(status)
            self.send_header("Content-Length", str(length))
            self.send_header("Accept-Ranges", "bytes")
            if status == 206:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
            self.end_headers()
            with lock:
                cut = cuts.pop(name, None)
            with open(path, "rb") as f:
                f.seek(start)
                body = f.read(length)
            if cut is not None:
                self.wfile.write(body[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            if args.throttle > 0:
                step = max(1, args.throttle // 10)
                try:
                    for off in range(0, len(body), step):
                        self.wfile.write(body[off:off + step])
                        self.wfile.flush()
                        time.sleep(0.1)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
