"""gguflint.scan over the Hub: repositories listed on the workers with one
API request each (revision?blobs=true, served by tests/support/httpd.py on
127.0.0.1), the --api-rate token bucket (on a fake clock), hostile listings,
and the incremental state store (--state): a rerun lints only what changed
and says how much it skipped."""

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

import gguflint
from gguflint import hub
from gguflint.state import State, local_key
from conftest import ROOT

VALID = os.path.join(ROOT, "corpus", "examples", "valid.gguf")
HOSTILE = os.path.join(ROOT, "corpus", "examples", "hostile.gguf")
HTTPD = os.path.join(ROOT, "tests", "support", "httpd.py")


# ---- the token bucket and the listing's checks (no server, no wall time)

class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, s):
        self.now += s


def test_the_token_bucket_keeps_the_rate():
    clock = FakeClock()
    b = hub.TokenBucket(10.0, burst=1.0, clock=clock, sleep=clock.sleep)
    for _ in range(31):
        b.take()
    assert clock.now == pytest.approx(3.0)  # one free, then 30 at 10/s
    unlimited = hub.TokenBucket(0.0, clock=clock, sleep=clock.sleep)
    before = clock.now
    for _ in range(100):
        unlimited.take()
    assert clock.now == before


def test_each_worker_process_gets_its_share_of_the_rate():
    from gguflint.scan import hub_options

    class Client:
        def nthreads(self):
            return {"w1": 2, "w2": 2, "w3": 2, "w4": 2}

    class A:
        api_rate, retries = 10.0, 3

    assert hub_options(Client(), A()).rate == pytest.approx(2.5)


def test_repository_references():
    assert hub.parse_repo("hf://org/repo") == ("org", "repo", "main")
    assert hub.parse_repo("hf://org/repo@v1.0") == ("org", "repo", "v1.0")
    for bad in ("hf://org", "hf://org/repo/x.gguf", "hf://org/repo@", "hf://../repo",
                "hf://org/repo@a/b", "hf://org/re po", "https://org/repo", "hf://org/repo@a\x01"):
        assert hub.parse_repo(bad) is None, bad


def test_hostile_listings_are_refused():
    ok = {"rfilename": "a.gguf", "size": 5, "lfs": {"sha256": "ab" * 32}}
    assert hub._entries([ok, {"rfilename": "README.md", "size": 3}]) == [
        {"path": "a.gguf", "size": 5, "key": "lfs:" + "ab" * 32}]
    assert hub._entries([{"rfilename": "b.gguf", "size": 7, "blobId": "cd" * 20}]) == [
        {"path": "b.gguf", "size": 7, "key": "blob:" + "cd" * 20 + ":7"}]
    assert hub._entries([{"rfilename": "c.gguf", "lfs": {"sha256": "not hex"}}])[0]["key"] is None
    for bad in ("../x.gguf", "/abs.gguf", "a//b.gguf", "./a.gguf", "a\\b.gguf", "a\nb.gguf",
                7, None, "x" * 2000 + ".gguf"):
        assert hub._entries([ok, {"rfilename": bad, "size": 1}]) is None, bad
    for size in (-1, True, "5", 1.5):
        assert hub._entries([{"rfilename": "a.gguf", "size": size}]) is None, size
    assert hub._entries({"rfilename": "a.gguf"}) is None
    assert hub._entries(["a.gguf"]) is None


def test_the_state_store(tmp_path):
    db = str(tmp_path / "state.db")
    st = State(db)
    ok = {"status": "ok", "report": {"findings": [{"severity": "error"}, {"severity": "note"}]}}
    assert not st.unchanged("org/r", "a.gguf", "lfs:1", "c1")
    st.record(("org/r", "a.gguf", "c1", "lfs:1"), ok)
    st.record(("org/r", "b.gguf", "c1", "lfs:2"), {"status": "error", "report": {}})
    st.record(("", "http://h/x.gguf", None, None), ok)  # no key: not stored
    st.close()
    st = State(db)
    assert st.unchanged("org/r", "a.gguf", "lfs:1", "c2")      # a new commit, same object
    assert not st.unchanged("org/r", "a.gguf", "lfs:9", "c2")  # a new object
    assert not st.unchanged("org/r", "b.gguf", "lfs:2", "c1")  # not read last time: again
    assert not st.unchanged("", "http://h/x.gguf", None)
    row = st.db.execute("SELECT revision, errors FROM files WHERE path='a.gguf'").fetchone()
    assert row == ("c2", 1)
    st.close()
    assert local_key(VALID).startswith(f"stat:{os.path.getsize(VALID)}:")
    assert local_key(str(tmp_path / "missing")) is None


# ---- end to end on a LocalCluster against the local Hub

distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed")
needs_url = pytest.mark.skipif(not getattr(gguflint, "HAVE_URL", False),
                               reason="this build reads no URLs")


@pytest.fixture
def hubsrv(tmp_path):
    root = tmp_path / "srv"
    for r in ("a", "b", "c"):
        d = root / "hf" / "org" / r
        (d / "sub").mkdir(parents=True)
        shutil.copyfile(VALID, d / "valid.gguf")
        shutil.copyfile(HOSTILE, d / "sub" / "hostile.gguf")
        (d / "README.md").write_text("not a model\n")
    ports = tmp_path / "ports"
    proc = subprocess.Popen([sys.executable, HTTPD, str(root), str(ports)],
                            stdin=subprocess.PIPE)
    t0 = time.monotonic()
    while not ports.exists():
        assert time.monotonic() - t0 < 30, "httpd.py did not start"
        time.sleep(0.05)
    url = "http://127.0.0.1:%s" % ports.read_text().split()[0]
    yield root, url
    proc.stdin.close()
    proc.wait(timeout=30)


def log(url):
    with urllib.request.urlopen(url + "/_log") as r:
        entries = [e for e in json.load(r) if not e["path"].startswith("/_")]
    urllib.request.urlopen(url + "/_clear").read()
    return entries


def scan_cli(args, cwd, url):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HF_ENDPOINT=url)
    env.pop("HF_TOKEN", None)
    p = subprocess.run([sys.executable, "-m", "gguflint.scan", *args, "--workers", "2",
                        "--progress", "never", "--summary-json", str(cwd / "s.json")],
                       cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return p, json.loads((cwd / "s.json").read_text())


@needs_url
def test_one_api_request_per_repository_and_an_incremental_rerun(hubsrv, tmp_path):
    root, url = hubsrv
    lst = tmp_path / "list.txt"
    lst.write_text("hf://org/a\nhf://org/b@main\nhf://org/c\n")
    log(url)
    p, s = scan_cli([str(lst), "-o", "one.jsonl", "--state", "state.db"], tmp_path, url)
    assert p.returncode == 0, p.stderr
    api = [e["path"] for e in log(url) if e["path"].startswith("/api/")]
    assert sorted(api) == [f"/api/models/org/{r}/revision/main?blobs=true" for r in "abc"]
    recs = [json.loads(x) for x in (tmp_path / "one.jsonl").read_text().splitlines()]
    assert len(recs) == 6 and all(r["status"] == "ok" for r in recs)
    assert all("@" in r["source"] and len(r["source"].split("@")[1].split("/")[0]) == 40
               for r in recs)  # pinned to the commit the listing named
    d = s["discovery"]
    assert (d["repos"], d["api_requests"], d["found"], d["unchanged"]) == (3, 3, 6, 0)

    # nothing changed: nothing linted, every file said to be skipped, no file request
    p, s = scan_cli([str(lst), "-o", "two.jsonl", "--state", "state.db"], tmp_path, url)
    assert p.returncode == 0, p.stderr
    assert s["files"] == 0 and s["discovery"]["unchanged"] == 6
    assert "6 of 6 files unchanged since the last scan (skipped)" in p.stderr
    assert all(e["path"].startswith("/api/") for e in log(url))

    # one file changed, and a new revision with the same objects: one lint
    with open(root / "hf" / "org" / "b" / "valid.gguf", "ab") as f:
        f.write(b"\0" * 32)
    lst.write_text("hf://org/a@v2\nhf://org/b@main\nhf://org/c\n")
    p, s = scan_cli([str(lst), "-o", "three.jsonl", "--state", "state.db"], tmp_path, url)
    recs = [json.loads(x) for x in (tmp_path / "three.jsonl").read_text().splitlines()]
    assert [r["source"].split("@")[0] for r in recs] == ["hf://org/b"]
    assert recs[0]["source"].endswith("/valid.gguf")
    assert s["files"] == 1 and s["discovery"]["unchanged"] == 5


@needs_url
def test_a_repository_that_cannot_be_listed_fails_the_run_not_the_others(hubsrv, tmp_path):
    root, url = hubsrv
    lst = tmp_path / "list.txt"
    lst.write_text(f"hf://org/missing\nhf://org/a\n{VALID}\n")
    p, s = scan_cli([str(lst), "-o", "out.jsonl"], tmp_path, url)
    assert p.returncode == 1
    assert "'hf://org/missing': listing failed" in p.stderr and "HTTP 404" in p.stderr
    assert s["files"] == 4 and s["ok"] == 3 and s["failed"] == 1
    assert s["discovery"]["repos_failed"] == 1
    recs = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["status"] for r in recs if r["source"] == "hf://org/missing"] == ["error"]


def test_local_files_are_incremental_too(tmp_path):
    f = tmp_path / "m.gguf"
    shutil.copyfile(VALID, f)
    lst = tmp_path / "list.txt"
    lst.write_text(f"{f}\n")
    p, s = scan_cli([str(lst), "-o", "a.jsonl", "--state", "st.db"], tmp_path, "http://127.0.0.1:9")
    assert p.returncode == 0 and s["files"] == 1
    p, s = scan_cli([str(lst), "-o", "b.jsonl", "--state", "st.db"], tmp_path, "http://127.0.0.1:9")
    assert s["files"] == 0 and s["discovery"]["unchanged"] == 1
    with open(f, "ab") as fh:
        fh.write(b"\0")
    p, s = scan_cli([str(lst), "-o", "c.jsonl", "--state", "st.db"], tmp_path, "http://127.0.0.1:9")
    assert s["files"] == 1 and s["discovery"]["unchanged"] == 0
