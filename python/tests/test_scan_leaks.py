"""Issue 25: the scanner never leaks a thread or a descriptor. 20 URLs whose
server sends one byte every 0.2 s (never a stall, never the end) are each
given up on after a 1 s timeout, in a process limited to 64 descriptors;
every abandoned attempt is cancelled in the C transfer, so the threads and
sockets it used come back, and a clean local file lints afterwards. Before,
each abandoned attempt kept its thread and socket for as long as the server
dripped (20 slow URLs: 61 threads, 180 sockets), and a worker out of
descriptors turned every later input into an error."""

import json
import os
import socket
import subprocess
import sys
import threading

import pytest

import gguflint
from conftest import corpus_files

if not getattr(gguflint, "HAVE_URL", False):
    pytest.skip("this build does not read URLs", allow_module_level=True)


class Drip:
    """A server on 127.0.0.1 that answers every request with a 206 whose
    body comes one byte every 0.2 s."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.stop.is_set():
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        try:
            c.recv(65536)
            c.sendall(b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-65535/100000\r\n"
                      b"Content-Length: 65536\r\nETag: \"x\"\r\n\r\n")
            while not self.stop.wait(0.2):
                c.sendall(b"G")
        except OSError:
            pass
        finally:
            c.close()

    def close(self):
        self.stop.set()
        self.sock.close()


CHILD = r"""
import json, os, resource, sys, threading, time
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
from gguflint import scan
port, clean = int(sys.argv[1]), sys.argv[2]
opts = scan.ScanOptions(timeout=1.0, retries=0)
scan.lint_one(clean, opts)  # the runner's first thread, the library loaded
def counts():
    return len(os.listdir("/proc/self/fd")), threading.active_count()
fds0, th0 = counts()
status = [scan.lint_one("http://127.0.0.1:%d/m%d.gguf" % (port, i), opts)["status"]
          for i in range(20)]
time.sleep(2.5)  # a cancelled transfer ends within about a second
fds1, th1 = counts()
after = scan.lint_one(clean, opts)
print(json.dumps({"status": status, "fds": [fds0, fds1], "threads": [th0, th1],
                  "after": after["status"]}))
"""


def test_abandoned_attempts_end(tmp_path):
    server = Drip()
    try:
        env = dict(os.environ, no_proxy="*", NO_PROXY="*", PYTHONDONTWRITEBYTECODE="1")
        env.pop("http_proxy", None)
        env.pop("HTTP_PROXY", None)
        p = subprocess.run([sys.executable, "-c", CHILD, str(server.port),
                            corpus_files(realfiles=False)[0]],
                           capture_output=True, text=True, timeout=120, env=env)
    finally:
        server.close()
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    print("[leaks] descriptors before/after 20 slow URLs: %d/%d, threads %d/%d"
          % (r["fds"][0], r["fds"][1], r["threads"][0], r["threads"][1]))
    assert r["status"] == ["timeout"] * 20
    assert r["after"] == "ok"
    assert r["threads"][1] <= r["threads"][0] + 1
    assert r["fds"][1] <= r["fds"][0] + 4  # the transport's idle connections at most
