#!/usr/bin/env python3
"""httpd.py - a fault-injecting HTTP server for gguflint's URL tests.

    httpd.py ROOT PORTFILE [CERT KEY]

Starts two servers on 127.0.0.1 only (ephemeral ports "A" and "B", two
origins, so a redirect from A to B goes to "another host"), and with CERT and
KEY a third one "C" speaking HTTPS with that (self-signed) certificate;
writes "A B [C]\\n" to PORTFILE, and serves until its standard input closes
(the test that started it exits or closes the pipe). Standard library only.

    GET /MODES/PATH          ROOT/PATH, with MODES (comma-separated) shaping
                             the response; "ok" is plain correct behaviour:
                             single byte ranges (206 + Content-Range), a strong
                             ETag, Last-Modified, If-Range, 416 past the end.
    GET /api/models/ORG/REPO/revision/REV[?blobs=true]
                             {"sha": a commit id made from ORG/REPO@REV}; with
                             blobs=true also "siblings", every file of
                             ROOT/hf/ORG/REPO in one answer (rfilename, size,
                             and for .gguf files lfs.sha256 of the content)
    GET /api/models/ORG/REPO/tree/REV[/DIR]?recursive=true[&cursor=N]
                             the Hugging Face tree API over ROOT/hf/ORG/REPO,
                             two entries a page, Link: <...>; rel="next"
    GET /ORG/REPO/resolve/REV/PATH
                             302 to http://127.0.0.1:B/ok/hf/ORG/REPO/PATH (the
                             Hub sends files to a CDN on another host); a
                             repository holding a file named .private answers
                             401 without "Authorization: Bearer secret-token"
    GET /_log                the requests seen (JSON list of objects: port,
                             path, range, if_range, authorization)
    GET /_clear              forget the log and the per-path counters

Modes: norange (200, whole body, Range ignored), redirect (302 to /ok/PATH),
xredirect (302 to the other port), loop (redirects to itself), s416 (always
416), stall (no answer for 60 s), stallbody (half the body, then 60 s of
silence), truncate (half the body, then close), liecl (Content-Length larger
than the body, then close), shortcl (Content-Length smaller than the
Content-Range), change (from the second request on, a new ETag, honouring
If-Range), change_noifrange (new ETag, If-Range ignored), grow (no validators;
from the second request on, the file is one byte longer), e503x2 (two 503s
with Retry-After: 0, then ok), e429 (one 429, then ok), e503 (always 503),
gzip (Content-Encoding: gzip), wrongstart (the range starts one byte late),
shortrange (at most 64 KiB per response), auth (401 without the token),
noetag (no ETag or Last-Modified), weak (a weak ETag), e404 (404), drip (the
body one byte every 0.3 s), driphead (the headers one byte every 0.3 s),
bigretry (always 503 with Retry-After: 100000), e503wait (always 503 with
Retry-After: 1), longhead (a 1 MiB header line).

GGUFLINT_HTTPD_LATENCY_MS=N in the environment delays every answer by N ms
(a far Hub or CDN, for ci/bench-scan.py).
"""
import email.utils
import hashlib
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "Bearer secret-token"
PAGE = 2
CHUNK = 1 << 20
LATENCY = float(os.environ.get("GGUFLINT_HTTPD_LATENCY_MS", "0") or 0) / 1000.0


class State:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.lock = threading.Lock()
        self.log = []
        self.counts = {}
        self.ports = [0, 0]
        self.stop = threading.Event()

    def count(self, key):
        with self.lock:
            n = self.counts.get(key, 0)
            self.counts[key] = n + 1
            return n


def safe_path(root, rel):
    """ROOT/rel when it stays inside ROOT and is a regular file, else None."""
    p = os.path.realpath(os.path.join(root, rel))
    if not p.startswith(root + os.sep) or not os.path.isfile(p):
        return None
    return p


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "gguflint-test"
    sys_version = ""

    def log_message(self, fmt, *args):  # quiet
        pass

    @property
    def st(self):
        return self.server.state

    def other_port(self):
        a, b = self.st.ports
        return b if self.server.server_port == a else a

    def send_simple(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        st = self.st
        url = urllib.parse.urlsplit(self.path)
        with st.lock:
            st.log.append({
                "port": self.server.server_port,
                "path": self.path,
                "range": self.headers.get("Range"),
                "if_range": self.headers.get("If-Range"),
                "authorization": self.headers.get("Authorization"),
            })
        if LATENCY > 0:
            time.sleep(LATENCY)
        parts = [p for p in url.path.split("/") if p]
        if url.path == "/_log":
            with st.lock:
                body = json.dumps(st.log).encode()
            return self.send_simple(200, body, [("Content-Type", "application/json")])
        if url.path == "/_clear":
            with st.lock:
                st.log.clear()
                st.counts.clear()
            return self.send_simple(200, b"ok")
        if len(parts) == 6 and parts[0] == "api" and parts[1] == "models" and parts[4] == "revision":
            return self.revision(parts[2], parts[3], parts[5], url.query)
        if len(parts) >= 6 and parts[0] == "api" and parts[1] == "models" and parts[4] == "tree":
            return self.tree(parts[2], parts[3], parts[5], parts[6:], url.query)
        if len(parts) >= 5 and parts[2] == "resolve":
            return self.resolve(parts[0], parts[1], parts[4:])
        if len(parts) < 2:
            return self.send_simple(404, b"no such path")
        modes = set(parts[0].split(","))
        rel = urllib.parse.unquote("/".join(parts[1:]))
        return self.serve(modes, rel)

    # ---- the Hub ----

    def repo_dir(self, org, repo):
        d = os.path.realpath(os.path.join(self.st.root, "hf", org, repo))
        if not d.startswith(self.st.root + os.sep) or not os.path.isdir(d):
            return None
        return d

    def authorised(self, d):
        return not os.path.exists(os.path.join(d, ".private")) or \
            self.headers.get("Authorization") == TOKEN

    def revision(self, org, repo, rev, query=""):
        d = self.repo_dir(org, repo)
        if d is None or rev == "missing":
            return self.send_simple(404, b'{"error":"Revision not found"}')
        if not self.authorised(d):
            return self.send_simple(401, b'{"error":"Invalid credentials in Authorization header"}')
        sha = hashlib.sha1(("%s/%s@%s" % (org, repo, rev)).encode()).hexdigest()
        info = {"id": "%s/%s" % (org, repo), "sha": sha}
        if urllib.parse.parse_qs(query).get("blobs") == ["true"]:
            info["siblings"] = self.siblings(d)
        return self.send_simple(200, json.dumps(info).encode(),
                                [("Content-Type", "application/json")])

    def siblings(self, d):
        out = []
        for top, dirs, files in os.walk(d):
            dirs.sort()
            for name in sorted(files):
                if name == ".private":
                    continue
                full = os.path.join(top, name)
                size = os.path.getsize(full)
                e = {"rfilename": os.path.relpath(full, d), "size": size, "blobId": "0" * 40}
                if name.endswith(".gguf"):
                    with open(full, "rb") as f:
                        oid = hashlib.sha256(f.read()).hexdigest()
                    e["lfs"] = {"sha256": oid, "size": size, "pointerSize": 134}
                out.append(e)
        return out

    def tree(self, org, repo, rev, sub, query):
        d = self.repo_dir(org, repo)
        if d is None or rev == "missing":
            return self.send_simple(404, b'{"error":"Repository not found"}')
        if not self.authorised(d):
            return self.send_simple(401, b'{"error":"Invalid credentials in Authorization header"}')
        q = urllib.parse.parse_qs(query)
        start = os.path.join(d, *[urllib.parse.unquote(s) for s in sub])
        entries = []
        for top, dirs, files in os.walk(start):
            dirs.sort()
            for name in dirs:
                entries.append({"type": "directory", "oid": "0",
                                "path": os.path.relpath(os.path.join(top, name), d)})
            for name in sorted(files):
                if name == ".private":
                    continue
                full = os.path.join(top, name)
                size = os.path.getsize(full)
                e = {"type": "file", "oid": "0", "size": size,
                     "path": os.path.relpath(full, d)}
                if name.endswith(".gguf"):
                    e["lfs"] = {"oid": "0" * 64, "size": size, "pointerSize": 134}
                entries.append(e)
        cursor = int(q.get("cursor", ["0"])[0])
        page = entries[cursor:cursor + PAGE]
        headers = [("Content-Type", "application/json")]
        if cursor + PAGE < len(entries):
            nq = dict(recursive="true", cursor=str(cursor + PAGE))
            nxt = urllib.parse.urlsplit(self.path)._replace(query=urllib.parse.urlencode(nq))
            headers.append(("Link", '<%s>; rel="next"' % urllib.parse.urlunsplit(nxt)))
        return self.send_simple(200, json.dumps(page).encode(), headers)

    def resolve(self, org, repo, path):
        d = self.repo_dir(org, repo)
        if d is None:
            return self.send_simple(404, b"Repository not found")
        if not self.authorised(d):
            return self.send_simple(401, b"Invalid credentials")
        target = "http://127.0.0.1:%d/ok/hf/%s/%s/%s" % (
            self.other_port(), org, repo, "/".join(path))
        return self.send_simple(302, b"", [("Location", target)])

    # ---- files ----

    def serve(self, modes, rel):
        st = self.st
        n = st.count((tuple(sorted(modes)), rel))
        if "e404" in modes:
            return self.send_simple(404, b"Entry not found")
        if "auth" in modes and self.headers.get("Authorization") != TOKEN:
            return self.send_simple(401, b'{"error":"Invalid credentials"}')
        if "redirect" in modes:
            return self.send_simple(302, b"", [("Location", "/ok/" + rel)])
        if "xredirect" in modes:
            return self.send_simple(302, b"", [(
                "Location", "http://127.0.0.1:%d/ok/%s" % (self.other_port(), rel))])
        if "loop" in modes:
            return self.send_simple(302, b"", [("Location", self.path)])
        if ("e503x2" in modes and n < 2) or "e503" in modes:
            return self.send_simple(503, b"busy", [("Retry-After", "0")])
        if "e429" in modes and n < 1:
            return self.send_simple(429, b"slow down", [("Retry-After", "0")])
        if "longhead" in modes:
            self.close_connection = True
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * (1 << 20) + b"\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if "e503wait" in modes:
            return self.send_simple(503, b"busy", [("Retry-After", "1")])
        if "bigretry" in modes:
            return self.send_simple(503, b"busy", [("Retry-After", "100000")])
        if "driphead" in modes:
            return self.drip(b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 100000)
        if "stall" in modes:
            st.stop.wait(60)
            self.close_connection = True
            return
        path = safe_path(st.root, rel)
        if path is None:
            return self.send_simple(404, b"Entry not found")
        size = os.path.getsize(path)
        mtime = os.path.getmtime(path)
        changed = n >= 1 and ("change" in modes or "change_noifrange" in modes)
        extra = 1 if ("grow" in modes and n >= 1) else 0
        total = size + extra
        etag = '"%x-%x%s"' % (size, int(mtime), "-v2" if changed else "")
        if "weak" in modes:
            etag = "W/" + etag
        lastmod = email.utils.formatdate(mtime, usegmt=True)
        validators = not ("noetag" in modes or "grow" in modes)
        headers = []
        if validators:
            headers += [("ETag", etag), ("Last-Modified", lastmod)]
        headers.append(("Accept-Ranges", "bytes"))
        if "gzip" in modes:
            headers.append(("Content-Encoding", "gzip"))

        rng = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        first, last, code = 0, total - 1, 200
        honour = rng is not None and "norange" not in modes
        if honour and if_range is not None and "change_noifrange" not in modes:
            honour = if_range in (etag, lastmod)  # else the whole (new) file
        if honour:
            try:
                unit, spec = rng.split("=", 1)
                a, b = spec.split("-", 1)
                first = int(a)
                last = int(b) if b else total - 1
            except ValueError:
                return self.send_simple(400, b"bad range")
            if "s416" in modes or first >= total:
                return self.send_simple(416, b"", [("Content-Range", "bytes */%d" % total)])
            last = min(last, total - 1)
            if "shortrange" in modes:
                last = min(last, first + 65535)
            code = 206
        if "s416" in modes:
            return self.send_simple(416, b"", [("Content-Range", "bytes */%d" % total)])
        length = last - first + 1 if total else 0
        send_first = first + 1 if "wrongstart" in modes and code == 206 else first
        if code == 206:
            headers.append(("Content-Range", "bytes %d-%d/%d" % (send_first, last, total)))
        declared = length
        if "liecl" in modes:
            declared = length + 1000
        if "shortcl" in modes and code == 206:
            declared = max(length // 2, 1)
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(declared))
        self.end_headers()
        send = min(length, declared)
        if "truncate" in modes or "stallbody" in modes:
            send = length // 2
        if "drip" in modes:
            with open(path, "rb") as f:
                f.seek(send_first)
                return self.drip(f.read(send))
        self.copy(path, size, send_first, send)
        if "stallbody" in modes:
            self.wfile.flush()
            st.stop.wait(60)
        if send < declared or "truncate" in modes or "liecl" in modes:
            self.close_connection = True

    def drip(self, data):
        """One byte every 0.3 s: never a stall, never the end either."""
        self.close_connection = True
        for i in range(len(data)):
            try:
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return
            if self.st.stop.wait(0.3):
                return

    def copy(self, path, size, first, n):
        """n bytes of the file from `first` (zeros past its end: 'grow')."""
        with open(path, "rb") as f:
            f.seek(first)
            while n > 0:
                want = min(n, CHUNK)
                data = f.read(want) if first < size else b""
                if len(data) < want:
                    data += b"\0" * (want - len(data))
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return
                n -= want
                first += want


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client that hangs up mid-response (on purpose, in the fault
        # tests) is not an error of the server
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit("usage: httpd.py ROOT PORTFILE [CERT KEY]")
    state = State(sys.argv[1])
    servers = []
    for i in range(2 if len(sys.argv) == 3 else 3):
        srv = Server(("127.0.0.1", 0), Handler)
        srv.state = state
        if i == 2:
            import ssl
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(sys.argv[3], sys.argv[4])
            srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        else:
            state.ports[i] = srv.server_port
        servers.append(srv)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write(" ".join(str(s.server_port) for s in servers) + "\n")
    os.replace(tmp, sys.argv[2])
    try:
        sys.stdin.read()  # until the test closes the pipe
    except KeyboardInterrupt:
        pass
    state.stop.set()
    for srv in servers:
        srv.shutdown()


if __name__ == "__main__":
    main()
