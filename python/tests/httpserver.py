"""httpserver.py - a small HTTP server on 127.0.0.1 for the Python tests and
the scan benchmark: files of one folder with byte ranges, a Hugging Face Hub
look-alike, fault injection, and counts of what it served.

    server = serve(folder)          # a thread; server.url = "http://127.0.0.1:PORT"
    server.fail_next["/a.gguf"] = 2 # the next two requests for it get 503
    server.stats                    # requests and body bytes, in total and per path
    server.stop()

Served: GET and HEAD of FOLDER/PATH with one "Range: bytes=A-B" (or A-, or
-N) per request (206, 416 past the end), ETag and Accept-Ranges; the Hub's
paths for HF_ENDPOINT=server.url: /api/models/ORG/REPO/tree/REV[/DIR]
(a JSON listing of FOLDER/ORG/REPO: one level, all with ?recursive=true) and
/ORG/REPO/resolve/REV/PATH (the file FOLDER/ORG/REPO/PATH). It binds to
127.0.0.1 only and never contacts anything.

Run by itself (python3 httpserver.py FOLDER) it serves until interrupted and
prints its URL.
"""

import json
import os
import re
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class Handler(BaseHTTPRequestHandler):
    server_version = "gguflint-test/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    # ---- helpers
    def _send(self, code, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)
            self.server.count(self.path_only, len(body))

    def _local(self, rel):
        root = os.path.realpath(self.server.root)
        full = os.path.realpath(os.path.join(root, rel.lstrip("/")))
        if full != root and not full.startswith(root + os.sep):
            return None
        return full

    # ---- routes
    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        self.path_only = unquote(urlsplit(self.path).path)
        self.server.count(self.path_only, 0, request=True)
        if self.server.take_fault(self.path_only):
            return self._send(503, b"injected failure\n", {"Retry-After": "0"})
        m = re.match(r"^/api/models/([^/]+)/([^/]+)/tree/([^/]+)(/.*)?$", self.path_only)
        if m:
            query = parse_qs(urlsplit(self.path).query)
            recursive = query.get("recursive", ["false"])[0].lower() in ("1", "true")
            return self._tree(m.group(1), m.group(2), (m.group(4) or "").strip("/"), recursive)
        m = re.match(r"^/([^/]+)/([^/]+)/resolve/([^/]+)/(.+)$", self.path_only)
        if m:
            return self._file(f"{m.group(1)}/{m.group(2)}/{m.group(4)}")
        return self._file(self.path_only)

    def _tree(self, org, repo, sub, recursive):
        folder = self._local(f"{org}/{repo}/{sub}")
        if not folder or not os.path.isdir(folder):
            return self._send(404, b'{"error":"Repository not found"}',
                              {"Content-Type": "application/json"})
        items = []
        todo = [(folder, sub)]
        while todo:
            d, rel_d = todo.pop(0)
            for name in sorted(os.listdir(d)):
                full = os.path.join(d, name)
                rel = f"{rel_d}/{name}" if rel_d else name
                if os.path.isdir(full):
                    items.append({"type": "directory", "path": rel, "size": 0})
                    if recursive:
                        todo.append((full, rel))
                else:
                    items.append({"type": "file", "path": rel, "size": os.path.getsize(full)})
        return self._send(200, json.dumps(items).encode(), {"Content-Type": "application/json"})

    def _file(self, rel):
        full = self._local(rel)
        if not full or not os.path.isfile(full):
            return self._send(404, b"not found\n")
        size = os.path.getsize(full)
        st = os.stat(full)
        etag = f'"{st.st_ino:x}-{st.st_size:x}-{int(st.st_mtime_ns):x}"'
        headers = {"Accept-Ranges": "bytes", "ETag": etag,
                   "Content-Type": "application/octet-stream"}
        rng = self.headers.get("Range")
        start, end = 0, size - 1
        code = 200
        if rng:
            m = RANGE.match(rng.strip())
            if not m or (not m.group(1) and not m.group(2)):
                return self._send(416, b"", {"Content-Range": f"bytes */{size}"})
            if m.group(1):
                start = int(m.group(1))
                end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            else:
                start = max(0, size - int(m.group(2)))
            if start >= size or start > end:
                return self._send(416, b"", {"Content-Range": f"bytes */{size}"})
            code = 206
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        with open(full, "rb") as f:
            f.seek(start)
            body = f.read(end - start + 1) if size else b""
        return self._send(code, body, headers)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root):
        super().__init__(("127.0.0.1", 0), Handler)
        self.root = root
        self.lock = threading.Lock()
        self.fail_next = Counter()
        self.requests = Counter()
        self.body_bytes = Counter()
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self.thread = None

    def count(self, path, n, request=False):
        with self.lock:
            if request:
                self.requests[path] += 1
            self.body_bytes[path] += n

    def take_fault(self, path):
        with self.lock:
            if self.fail_next[path] > 0:
                self.fail_next[path] -= 1
                return True
        return False

    @property
    def stats(self):
        with self.lock:
            return {"requests": sum(self.requests.values()),
                    "body_bytes": sum(self.body_bytes.values()),
                    "per_path": {p: (self.requests[p], self.body_bytes[p]) for p in self.requests}}

    def reset_stats(self):
        with self.lock:
            self.requests.clear()
            self.body_bytes.clear()

    def stop(self):
        self.shutdown()
        self.server_close()


def serve(root):
    s = Server(root)
    s.thread = threading.Thread(target=s.serve_forever, name="httpserver", daemon=True)
    s.thread.start()
    return s


if __name__ == "__main__":
    srv = Server(sys.argv[1] if len(sys.argv) > 1 else ".")
    print(srv.url, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
