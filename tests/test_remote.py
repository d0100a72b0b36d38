#!/usr/bin/env python3
"""test_remote.py - gguflint on URLs served by local test servers: the fault
matrix of URL inputs, end to end through the CLI.

    test_remote.py GGUFLINT GEN_REMOTE HTTPD_PY EXAMPLES_DIR

Starts tests/support/httpd.py (two origins on 127.0.0.1, never any other
host; proxies are switched off), serves the files gen_remote writes (and the
example files), and checks for every fault that gguflint ends with a clear
error and exit 2 - never a crash, a hang (each run has a time limit) or a
wrong "clean" - and for every good server that the findings are exactly those
of the same file linted locally. Standard library only. Prints the bytes and
requests of each remote lint it measures."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

GGUFLINT = GEN = HTTPD = EXAMPLES = None
WORK = None
SERVER = None
RUN_LIMIT = 60  # seconds: a run that takes longer is a hang


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "hf_token",
                                "hf_endpoint")}
    env["no_proxy"] = env["NO_PROXY"] = "*"
    env.update(extra)
    return env


class Server:
    def __init__(self, root, tls=()):
        self.portfile = os.path.join(WORK, "ports")
        self.proc = subprocess.Popen([sys.executable, HTTPD, root, self.portfile] + list(tls),
                                     stdin=subprocess.PIPE, env=clean_env())
        deadline = time.time() + 30
        while not os.path.exists(self.portfile):
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        with open(self.portfile) as f:
            ports = [int(x) for x in f.read().split()]
        self.a, self.b = ports[:2]
        self.tls = ports[2] if len(ports) > 2 else None

    def url(self, mode, path, port=None):
        return "http://127.0.0.1:%d/%s/%s" % (port or self.a, mode, path)

    def get(self, path):
        import urllib.request
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open("http://127.0.0.1:%d%s" % (self.a, path), timeout=10) as r:
            return r.read()

    def log(self):
        return [e for e in json.loads(self.get("/_log")) if not e["path"].startswith("/_")]

    def clear(self):
        self.get("/_clear")

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def lint(*args, env=None, limit=RUN_LIMIT):
    """Run gguflint; returns (rc, stdout, stderr, seconds). A hang fails the test."""
    t0 = time.time()
    p = subprocess.run([GGUFLINT] + list(args), capture_output=True, text=True,
                       timeout=limit, env=env or clean_env(HF_ENDPOINT=hub()))
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def lint_json(*args, **kw):
    rc, out, err, dt = lint("--format", "json", *args, **kw)
    return rc, json.loads(out), err


def hub():
    return "http://127.0.0.1:%d" % SERVER.a


def commit(ref):
    """The commit id the test server gives ORG/REPO@REV."""
    import hashlib
    return hashlib.sha1(ref.encode()).hexdigest()


def findings(file_entry):
    return [(f["rule"], f["severity"], f["offset"], f["length"], f["path"], f["message"])
            for f in file_entry["findings"]]


class Matrix(unittest.TestCase):
    """One test per row of the fault matrix."""

    def setUp(self):
        SERVER.clear()

    # ---- good servers: the remote result is the local result ----

    def assert_same_as_local(self, rel, *opts, mode="ok"):
        rc_l, local, _ = lint_json(*opts, os.path.join(WORK, rel))
        rc_r, remote, err = lint_json(*opts, SERVER.url(mode, rel))
        self.assertEqual(rc_r, rc_l, err)
        lf, rf = local["files"][0], remote["files"][0]
        self.assertNotIn("error", rf, err)
        self.assertEqual(rf["size"], lf["size"])
        self.assertEqual(findings(rf), findings(lf))
        self.assertEqual(rf["url"], SERVER.url(mode, rel))
        return rf

    def test_same_findings_as_local(self):
        for rel in ("small.gguf", "valid.gguf", "hostile.gguf", "hf/org/repo/big/many.gguf",
                    "hf/org/repo/q/m-00001-of-00003.gguf"):
            with self.subTest(rel=rel):
                f = self.assert_same_as_local(rel)
                self.assertLessEqual(f["requests"], 2)
                # every range a separate request: still the same findings
                f = self.assert_same_as_local(rel, "--fetch-first-range", "64")
                self.assertGreaterEqual(f["requests"], 1)

    def test_deep_same_as_local(self):
        f = self.assert_same_as_local("small.gguf", "--deep")
        self.assertGreaterEqual(f["requests"], 1)
        # threads of one --deep scan read ranges of one remote file at once
        f = self.assert_same_as_local("small.gguf", "--deep", "-j", "4", "--fetch-first-range",
                                      "64")
        self.assertGreater(f["requests"], 4)
        self.assert_same_as_local("hostile.gguf", "--deep", "--fetch-first-range", "64")

    def test_sparse_2gib_budget(self):
        f = self.assert_same_as_local("sparse.gguf")
        meta = SPARSE_META
        print("\n  sparse.gguf (%d bytes, %d of metadata): %d bytes fetched, %d requests"
              % (f["size"], meta, f["bytes_fetched"], f["requests"]), file=sys.stderr)
        self.assertLessEqual(f["bytes_fetched"], meta + (2 << 20))
        self.assertLessEqual(f["requests"], 3)

    def test_redirect_same_host(self):
        f = self.assert_same_as_local("small.gguf", mode="redirect")
        self.assertEqual(f["requests"], 2)

    def test_redirect_cross_host_drops_header(self):
        rc, out, err, _ = lint("--header", "Authorization: Bearer secret-token",
                               SERVER.url("xredirect", "small.gguf"))
        self.assertEqual(rc, 0, err)
        log = SERVER.log()
        self.assertEqual([e["port"] for e in log], [SERVER.a, SERVER.b])
        self.assertEqual(log[0]["authorization"], "Bearer secret-token")
        self.assertIsNone(log[1]["authorization"])

    def test_hf_token_to_hub_only(self):
        env = clean_env(HF_ENDPOINT=hub(), HF_TOKEN="secret-token")
        rc, out, err, _ = lint("hf://org/repo/small.gguf", env=env)
        self.assertEqual(rc, 0, err)
        for e in SERVER.log():
            if e["port"] == SERVER.a:
                self.assertEqual(e["authorization"], "Bearer secret-token", e)
            else:
                self.assertIsNone(e["authorization"], e)
        # a URL on another origin never gets the Hub token
        SERVER.clear()
        rc, out, err, _ = lint(SERVER.url("ok", "small.gguf", port=SERVER.b), env=env)
        self.assertEqual(rc, 0, err)
        self.assertTrue(all(e["authorization"] is None for e in SERVER.log()))

    def test_retries(self):
        for mode, extra in (("e503x2", 2), ("e429", 1)):
            with self.subTest(mode=mode):
                f = self.assert_same_as_local("small.gguf", mode=mode)
                self.assertEqual(f["requests"], 1 + extra)

    def test_weak_or_no_validator(self):
        for mode in ("weak", "noetag"):
            with self.subTest(mode=mode):
                self.assert_same_as_local("hf/org/repo/big/many.gguf", "--fetch-first-range",
                                          "4096", mode=mode)

    def test_short_ranges(self):
        f = self.assert_same_as_local("hf/org/repo/big/many.gguf", mode="shortrange")
        self.assertGreater(f["requests"], 2)

    def test_no_range_support(self):
        rc, out, err = lint_json(SERVER.url("norange", "small.gguf"))
        self.assertEqual(rc, 0, err)
        self.assertFalse(out["files"][0]["range_requests"])
        self.assertIn("ignores Range requests", err)
        # larger than the cap: read up to the cap, then reported
        rc, out, err = lint_json("--max-fetch", "4096",
                                 SERVER.url("norange", "hf/org/repo/big/many.gguf"))
        self.assertEqual(rc, 2)
        self.assertIn("ignores Range", err)
        self.assertEqual(out["files"][0]["error"], "I/O error")

    # ---- faults: exit 2 with a clear reason ----

    def fault(self, mode, rel, reason, *opts):
        rc, out, err, dt = lint("--format", "json", *opts, SERVER.url(mode, rel))
        self.assertEqual(rc, 2, "%s: %s %s" % (mode, out, err))
        self.assertIn(reason, err, mode)
        doc = json.loads(out)
        self.assertEqual(doc["files"][0]["error"], "I/O error", mode)
        self.assertIn(reason, doc["files"][0]["detail"], mode)
        return dt

    def test_416(self):
        self.fault("s416", "small.gguf", "416")

    def test_stalled_server_times_out(self):
        for mode in ("stall", "stallbody"):
            with self.subTest(mode=mode):
                dt = self.fault(mode, "hf/org/repo/big/many.gguf", "timed out", "--timeout", "1",
                                "--fetch-first-range", "65536")
                self.assertLess(dt, 15)

    def test_truncated_body(self):
        self.fault("truncate", "small.gguf", "closed before the body ended")

    def test_lying_content_length(self):
        self.fault("liecl", "small.gguf", "closed before the body ended")
        self.fault("shortcl", "small.gguf", "truncated body")

    def test_file_changes_between_requests(self):
        for mode in ("change", "change_noifrange", "grow"):
            with self.subTest(mode=mode):
                self.fault(mode, "hf/org/repo/big/many.gguf", "changed between requests",
                           "--fetch-first-range", "4096")

    def test_retries_exhausted(self):
        self.fault("e503", "small.gguf", "HTTP 503", "--retries", "1")
        self.assertEqual(len(SERVER.log()), 2)

    def test_bad_responses(self):
        self.fault("gzip", "small.gguf", "compressed")
        self.fault("wrongstart", "small.gguf", "other than the range asked for")
        self.fault("e404", "small.gguf", "HTTP 404")
        self.fault("loop", "small.gguf", "too many redirects")

    def test_auth(self):
        self.fault("auth", "small.gguf", "HTTP 401")
        rc, out, err, _ = lint("--header", "Authorization: Bearer secret-token",
                               SERVER.url("auth", "small.gguf"))
        self.assertEqual(rc, 0, err)

    def test_metadata_over_the_cap(self):
        self.fault("ok", "hf/org/repo/big/many.gguf", "fetch cap", "--max-fetch", "100000",
                   "--fetch-first-range", "4096")

    def test_transport_failures(self):
        rc, out, err, _ = lint("https://127.0.0.1:%d/ok/small.gguf" % SERVER.a)
        self.assertEqual(rc, 2)
        self.assertIn("TLS", err)
        # a port nobody listens on (the server's port after it is gone is not
        # guaranteed free; port 1 is reserved and closed)
        rc, out, err, _ = lint("--connect-timeout", "2", "http://127.0.0.1:1/x.gguf")
        self.assertEqual(rc, 2)
        self.assertIn("could not connect", err)

    def test_tls_always_verified(self):
        if SERVER.tls is None:
            self.skipTest("no openssl command to make a test certificate")
        # a self-signed certificate is refused: verification cannot be off
        rc, out, err, _ = lint("https://127.0.0.1:%d/ok/small.gguf" % SERVER.tls)
        self.assertEqual(rc, 2, err)
        self.assertIn("TLS failure", err)
        self.assertIn("certificate", err.lower())
        # and no HTTP request was made over the unverified connection
        self.assertEqual(SERVER.log(), [])

    def test_bad_usage(self):
        for args in (("--header", "no colon", "x.gguf"), ("--max-fetch", "x", "x.gguf"),
                     ("--timeout", "-1", "x.gguf"), ("--retries", "99", "x.gguf")):
            with self.subTest(args=args):
                rc, out, err, _ = lint(*args)
                self.assertEqual(rc, 2)
        rc, out, err, _ = lint("hf://../x/a.gguf")
        self.assertEqual(rc, 2)

    # ---- repositories ----

    def test_hf_repository(self):
        rc, out, err = lint_json("hf://org/repo")
        names = [f["path"] for f in out["files"]]
        # listed at the commit "main" names now: every file of one commit
        sha = commit("org/repo@main")
        self.assertEqual(names, ["hf://org/repo@%s/big/many.gguf" % sha,
                                 "hf://org/repo@%s/lone/m-00001-of-00003.gguf" % sha,
                                 "hf://org/repo@%s/q/m-00001-of-00003.gguf" % sha,
                                 "hf://org/repo@%s/q/m-00002-of-00003.gguf" % sha,
                                 "hf://org/repo@%s/small.gguf" % sha])
        self.assertEqual(rc, 1, err)  # the set misses its third shard
        rules = [f["rule"] for f in out["files"][2]["findings"]]
        self.assertIn("GG410", rules)
        for f in out["files"]:
            self.assertTrue(f["url"].startswith(hub() + "/org/repo/resolve/%s/" % sha), f["url"])
        # the listing went page by page (two entries a page)
        pages = [e for e in SERVER.log() if e["path"].startswith("/api/models/org/repo/tree")]
        self.assertGreater(len(pages), 2)
        # -j: fetched in parallel, reported in the same order with the same findings
        rc2, out2, err2 = lint_json("-j", "3", "hf://org/repo")
        self.assertEqual(rc2, rc)
        self.assertEqual([findings(f) for f in out2["files"]], [findings(f) for f in out["files"]])

    def test_hf_folder_and_revision(self):
        rc, out, err = lint_json("hf://org/repo@v2/q")
        sha = commit("org/repo@v2")
        self.assertEqual([f["path"] for f in out["files"]],
                         ["hf://org/repo@%s/q/m-00001-of-00003.gguf" % sha,
                          "hf://org/repo@%s/q/m-00002-of-00003.gguf" % sha])
        self.assertEqual(rc, 1)

    def test_hf_lone_shard(self):
        # issue 25: the first shard alone in a listed folder forms a set by
        # itself, so the two shards it lacks are named (it linted clean)
        rc, out, err = lint_json("--select", "GG41", "hf://org/repo/lone")
        self.assertEqual(len(out["files"]), 1, err)
        msgs = [f["message"] for f in out["files"][0]["findings"] if f["rule"] == "GG410"]
        self.assertEqual(len(msgs), 2, out)
        self.assertIn("shard 2 of 3", msgs[0])
        self.assertIn("shard 3 of 3", msgs[1])
        self.assertEqual(rc, 1)

    def test_hf_missing_repository(self):
        rc, out, err = lint_json("hf://org/nothing", SERVER.url("ok", "small.gguf"))
        self.assertEqual(rc, 2)
        self.assertIn("HTTP 404", err)
        self.assertEqual(out["files"][0]["error"], "I/O error")
        self.assertNotIn("error", out["files"][1])
        rc, out, err = lint_json("hf://org/repo@missing")
        self.assertEqual(rc, 2)

    def test_hf_private_repository(self):
        os.makedirs(os.path.join(WORK, "hf", "org", "private"), exist_ok=True)
        shutil.copy(os.path.join(WORK, "small.gguf"), os.path.join(WORK, "hf", "org", "private"))
        open(os.path.join(WORK, "hf", "org", "private", ".private"), "w").close()
        rc, out, err, _ = lint("hf://org/private")
        self.assertEqual(rc, 2)
        self.assertIn("401", err)
        env = clean_env(HF_ENDPOINT=hub(), HF_TOKEN="secret-token")
        rc, out, err, _ = lint("hf://org/private", env=env)
        self.assertEqual(rc, 0, err)
        self.assertTrue(all(e["authorization"] is None
                            for e in SERVER.log() if e["port"] == SERVER.b))

    def hash_json(self, *args):
        p = subprocess.run([GGUFLINT, "hash"] + list(args), capture_output=True, text=True,
                           timeout=RUN_LIMIT, env=clean_env(HF_ENDPOINT=hub()))
        return p.returncode, p.stdout, p.stderr

    def test_hash_url(self):
        for rel in ("small.gguf", "hostile.gguf"):
            with self.subTest(rel=rel):
                rc_l, out_l, err_l = self.hash_json(os.path.join(WORK, rel))
                rc_r, out_r, err_r = self.hash_json(SERVER.url("ok", rel))
                self.assertEqual(rc_r, rc_l, err_r)
                if rc_l != 0:
                    continue
                fl, fr = json.loads(out_l)["files"][0], json.loads(out_r)["files"][0]
                for key in ("size", "data_start", "data_sha256", "tensors"):
                    self.assertEqual(fr[key], fl[key], key)
        # verify a remote file against the local file's manifest
        manifest = os.path.join(WORK, "small.manifest.json")
        rc, out, err = self.hash_json("-o", manifest, os.path.join(WORK, "small.gguf"))
        self.assertEqual(rc, 0, err)
        rc, out, err = self.hash_json("--verify-manifest", manifest,
                                      SERVER.url("redirect", "small.gguf"))
        self.assertEqual(rc, 0, err + out)
        # the data read in ranges must be one version of the file
        rc, out, err = self.hash_json("--fetch-first-range", "4096",
                                      SERVER.url("change", "small.gguf"))
        self.assertEqual(rc, 2)
        self.assertIn("changed between requests", err)
        # a repository: each of its files
        rc, out, err = self.hash_json("hf://org/repo")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(json.loads(out)["files"]), 5)

    def test_dump_url(self):
        p = subprocess.run([GGUFLINT, "dump", "--format", "json", SERVER.url("ok", "small.gguf")],
                           capture_output=True, text=True, timeout=RUN_LIMIT, env=clean_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["file_size"], os.path.getsize(
            os.path.join(WORK, "small.gguf")))


SPARSE_META = 0


TIMES = []  # (case, seconds) of the deadline matrix, printed at the end


class Deadlines(unittest.TestCase):
    """The deadline fault matrix (issue 25): servers that never stall long
    enough for --timeout but never finish either, or that ask for endless
    retries. Each run ends with exit 2 and a reason naming the deadline,
    within a few seconds of it; the time of each is printed."""

    def setUp(self):
        SERVER.clear()

    def run_case(self, name, mode, *opts, bound=12):
        rc, out, err, dt = lint(*opts, SERVER.url(mode, "small.gguf"), limit=60)
        TIMES.append((name, dt))
        self.assertEqual(rc, 2, err)
        self.assertIn("deadline", err)
        self.assertLess(dt, bound, err)
        return err

    def test_slow_body(self):
        # before: one byte every 0.3 s held the run for the whole file (hours)
        self.run_case("slow body (1 byte / 0.3 s), --deadline 3", "drip",
                      "--deadline", "3", "--timeout", "2")

    def test_slow_headers(self):
        self.run_case("slow headers (1 byte / 0.3 s), --deadline 3", "driphead",
                      "--deadline", "3", "--timeout", "8")

    def test_huge_retry_after(self):
        # before: 60 s per retry whatever --timeout said (180 s at 3 retries)
        err = self.run_case("503 with Retry-After: 100000, --deadline 3", "bigretry",
                            "--deadline", "3", bound=3)
        self.assertIn("asks to wait", err)

    def test_many_503(self):
        self.run_case("always 503 (Retry-After: 1), --retries 20, --deadline 3", "e503wait",
                      "--deadline", "3", "--retries", "20")

    def test_endless_header_line(self):
        # before: "out of memory"
        rc, out, err, dt = lint(SERVER.url("longhead", "small.gguf"))
        self.assertEqual(rc, 2, err)
        self.assertIn("header line longer than", err)
        self.assertNotIn("out of memory", err)

    def test_file_deadline(self):
        self.run_case("slow body, --file-deadline 2", "drip",
                      "--file-deadline", "2", "--timeout", "2")


def main():
    global GGUFLINT, GEN, HTTPD, EXAMPLES, WORK, SERVER, SPARSE_META
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    GGUFLINT, GEN, HTTPD, EXAMPLES = sys.argv[1:5]
    WORK = tempfile.mkdtemp(prefix="gguflint-remote-")
    try:
        out = subprocess.run([GEN, WORK, "sparse"], check=True, capture_output=True,
                             text=True).stdout
        SPARSE_META = int(out.split(": ")[1].split()[0])
        for name in ("valid.gguf", "hostile.gguf"):
            shutil.copy(os.path.join(EXAMPLES, name), WORK)
        tls = ()
        if shutil.which("openssl"):
            cert, key = os.path.join(WORK, "cert.pem"), os.path.join(WORK, "key.pem")
            made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                                   "-keyout", key, "-out", cert, "-days", "1",
                                   "-subj", "/CN=127.0.0.1",
                                   "-addext", "subjectAltName=IP:127.0.0.1"],
                                  capture_output=True)
            if made.returncode == 0:
                tls = (cert, key)
        SERVER = Server(WORK, tls)
        try:
            prog = unittest.main(argv=[sys.argv[0], "-v"], exit=False)
        finally:
            SERVER.stop()
        for name, dt in TIMES:
            print("deadline matrix: %-48s %.2f s" % (name, dt))
        sys.exit(0 if prog.result.wasSuccessful() else 1)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
