"""gguflint.scan on Dask: a 2-worker LocalCluster over more than 1 000 files
(the corpus three times over, plus inputs served by a local HTTP server on
127.0.0.1 when this build reads URLs), every record checked against the
CLI's JSON for the same input; resume; retries and timeouts of the unit of
work."""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

import gguflint
from gguflint import scan
from conftest import ROOT, corpus_files, run_cli

distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed")

COPIES = 3


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The corpus copied COPIES times (each copy in its own folder, names
    kept, so name-based checks see the same names)."""
    base = tmp_path_factory.mktemp("scan")
    files = []
    for c in range(COPIES):
        for src in corpus_files(realfiles=False):
            rel = os.path.relpath(src, os.path.join(ROOT, "corpus"))
            dst = base / f"copy{c}" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            files.append(str(dst))
    files.append(str(base / "missing.gguf"))  # an input that cannot be read
    return base, files


def run_scan(args, cwd):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "gguflint.scan", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def read_records(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_scan_matches_the_cli_on_a_local_cluster(tree, cli, capsys):
    base, files = tree
    sources = list(files)
    server = None
    if getattr(gguflint, "HAVE_URL", False):
        from httpserver import serve
        server = serve(str(base / "copy0"))
        for name in sorted(os.listdir(base / "copy0" / "conformance"))[:100]:
            sources.append(f"{server.url}/conformance/{name}")
    assert len(sources) >= 1000
    lst = base / "list.txt"
    lst.write_text("# a comment and a blank line\n\n" + "\n".join(sources) + "\n")
    out = base / "out.jsonl"
    summary = base / "summary.json"
    p = run_scan([str(lst), "-o", str(out), "--workers", "2", "--summary-json", str(summary),
                  "--progress", "always"], base)
    assert p.returncode == 1, p.stderr  # one input cannot be read
    records = read_records(out)
    assert sorted(r["source"] for r in records) == sorted(sources)
    agree = 0
    for r in records:
        expected, rc = run_cli(cli, "--format", "json", r["source"], cwd=base)  # as the scan
        want = json.loads(expected)["files"][0]
        assert r["report"] == want, r["source"]
        assert r["status"] == ("ok" if rc in (0, 1) else "error"), r["source"]
        agree += 1
    s = json.loads(summary.read_text())
    assert s["files"] == len(sources) and s["failed"] == 1 and s["ok"] == len(sources) - 1
    assert "files/s" in p.stderr and "progress:" in p.stderr
    with capsys.disabled():
        print(f"\n[agreement] dask scan, 2 workers: {agree}/{len(records)} records identical to "
              f"the CLI; {s['files_per_second']:.0f} files/s")
    if server:
        server.stop()


def test_scan_resumes(tree):
    base, files = tree
    lst = base / "list-resume.txt"
    lst.write_text("\n".join(files[:300]) + "\n")
    out = base / "resume.jsonl"
    p = run_scan([str(lst), "-o", str(out), "--workers", "1", "--batch", "8"], base)
    assert p.returncode == 0, p.stderr
    lines = out.read_text().splitlines(keepends=True)
    assert len(lines) == 300
    # a run killed while writing: 50 records missing, the last one cut
    out.write_text("".join(lines[:250]) + lines[250][:17])
    p = run_scan([str(lst), "-o", str(out), "--workers", "1", "--summary-json",
                  str(base / "resume-summary.json")], base)
    assert p.returncode == 0, p.stderr
    s = json.loads((base / "resume-summary.json").read_text())
    assert s["files"] == 50 and s["skipped"] == 250
    records = read_records(out)
    assert sorted(r["source"] for r in records) == sorted(files[:300])


# ---- the unit of work, in process (no cluster): retries, timeouts, records

class Flaky:
    """A lint that fails with transient I/O errors `fails` times first."""

    def __init__(self, fails, error=None):
        self.fails, self.calls = fails, 0
        self.error = error or gguflint.IOError("connection reset by peer", status=1,
                                               detail="Connection reset by peer")

    def __call__(self, source, **kw):
        self.calls += 1
        if self.calls <= self.fails:
            raise self.error
        return gguflint.lint(source, **kw)


VALID = os.path.join(ROOT, "corpus", "examples", "valid.gguf")


def test_transient_failures_are_retried():
    opts = scan.ScanOptions(retries=3, backoff=0.001)
    rec = scan.lint_one(VALID, opts, lint=Flaky(2))
    assert rec["status"] == "ok" and rec["attempts"] == 3
    rec = scan.lint_one(VALID, opts, lint=Flaky(10))
    assert rec["status"] == "error" and rec["attempts"] == 4


def test_permanent_failures_are_not_retried(tmp_path):
    opts = scan.ScanOptions(retries=3, backoff=0.001)
    rec = scan.lint_one(str(tmp_path / "missing.gguf"), opts)
    assert rec["status"] == "error" and rec["attempts"] == 1
    assert rec["report"]["error"] == "I/O error"
    rec = scan.lint_one(str(tmp_path), opts)
    assert rec["status"] == "error" and rec["attempts"] == 1


def test_each_attempt_has_a_timeout():
    def stuck(source, **kw):
        time.sleep(3)
        return gguflint.lint(source, **kw)

    opts = scan.ScanOptions(timeout=0.1, retries=1, backoff=0.001)
    t0 = time.monotonic()
    rec = scan.lint_one(VALID, opts, lint=stuck)
    assert rec["status"] == "timeout" and rec["attempts"] == 2
    assert time.monotonic() - t0 < 2


def test_list_parsing_and_repositories():
    assert list(scan.read_list([" a.gguf \n", "\n", "# c\n", "https://h/x.gguf"])) == [
        "a.gguf", "https://h/x.gguf"]
    assert scan.is_hf_repo("hf://org/repo") and scan.is_hf_repo("hf://org/repo@v1")
    assert not scan.is_hf_repo("hf://org/repo/model.gguf")
    assert not scan.is_hf_repo("hf://org/repo@main/model.gguf")
    assert scan.expand("a.gguf") == ["a.gguf"]


def test_one_bad_line_does_not_stop_the_scan(tmp_path):
    """Issue 25: a listing that fails (here: no Hub at all) is one error
    record, every other input is linted, once, whatever its spelling."""
    assert scan.normalise("./a//b/./c.gguf") == "a/b/c.gguf"
    assert scan.normalise("/x//y") == "/x/y" and scan.normalise("../x") == "../x"
    assert scan.normalise("https://h//x.gguf") == "https://h//x.gguf"
    (tmp_path / "d").mkdir()
    shutil.copyfile(corpus_files(realfiles=False)[0], tmp_path / "d" / "f.gguf")
    lst = tmp_path / "list.txt"
    lst.write_text("hf://org/missing\nd/f.gguf\n./d/f.gguf\nd//f.gguf\nmissing.gguf\n")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HF_ENDPOINT="http://127.0.0.1:9",
               no_proxy="*", NO_PROXY="*")
    p = subprocess.run([sys.executable, "-m", "gguflint.scan", str(lst), "-o", "out.jsonl",
                        "--workers", "1"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 1, p.stderr  # inputs failed: said by the exit status
    records = read_records(tmp_path / "out.jsonl")
    by = {r["source"]: r for r in records}
    assert sorted(by) == ["d/f.gguf", "hf://org/missing", "missing.gguf"], records
    assert len(records) == 3
    assert by["d/f.gguf"]["status"] == "ok"
    assert by["hf://org/missing"]["status"] == "error"
    assert by["missing.gguf"]["status"] == "error"


def test_a_worker_that_dies_on_an_input_does_not_stop_the_scan(tmp_path):
    """The batch holding the input is split, the input that kills workers is
    recorded as "crashed", every other input gets its normal record."""
    import io
    import dask

    files = corpus_files(realfiles=False)[:40]
    crash = tmp_path / "CRASH.gguf"
    shutil.copyfile(files[0], crash)
    sources = files[:20] + [str(crash)] + files[20:]
    with dask.config.set({"distributed.scheduler.allowed-failures": 2}):
        client = scan.make_client(None, 2, 1)
        try:
            out = io.StringIO()
            s = scan.scan(sources, out, client, scan.ScanOptions(lint="crashers:lint"),
                          batch_size=8, task_retries=0)
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert sorted(r["source"] for r in records) == sorted(sources)
    by = {r["source"]: r for r in records}
    assert by[str(crash)]["status"] == "crashed"
    assert all(by[f]["status"] == "ok" for f in files)
    assert s.crashed == 1 and s.failed == 1 and s.ok == len(files)


def test_scan_on_a_scheduler_given_by_address(tree):
    """--scheduler: the scan connects to a running cluster and leaves it running."""
    import logging

    from distributed import LocalCluster

    base, files = tree
    lst = base / "list-sched.txt"
    lst.write_text("\n".join(files[:50]) + "\n")
    out = base / "sched.jsonl"
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        p = run_scan([str(lst), "-o", str(out), "--scheduler", cluster.scheduler_address],
                     base)
        assert p.returncode == 0, p.stderr
        assert len(cluster.scheduler.workers) == 1  # still up
    records = read_records(out)
    assert sorted(r["source"] for r in records) == sorted(files[:50])
    assert all(r["status"] == "ok" for r in records)


def test_a_port_or_path_that_looks_like_a_status_is_not_a_client_error():
    # The detail names the URL; its port (40147) or path must not read as HTTP 401.
    busy = "http://127.0.0.1:40147/x404.gguf: HTTP 503 Service Unavailable (retries exhausted)"
    assert scan._transient(gguflint.IOError("I/O error", detail=busy))
    gone = "http://127.0.0.1:8080/a.gguf: HTTP 404 Not Found"
    assert not scan._transient(gguflint.IOError("I/O error", detail=gone))


def _wait_for_no_workers(client, seconds=60):
    t0 = time.monotonic()
    while client.nthreads():
        assert time.monotonic() - t0 < seconds, "the workers did not go"
        time.sleep(0.1)


def test_an_owned_cluster_that_lost_every_worker_gets_new_ones():
    """A nanny whose worker died can fail to start a new one on a loaded
    machine, and then the scheduler has no worker forever (this hung the
    scan). The scan replaces the workers of a cluster it owns."""
    import io

    files = corpus_files(realfiles=False)[:30]
    client = scan.make_client(None, 1, 1)
    try:
        client.cluster.scale(0)
        _wait_for_no_workers(client)
        out = io.StringIO()
        s = scan.scan(files, out, client, scan.ScanOptions(), batch_size=4,
                      no_workers_timeout=1.0)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert sorted(r["source"] for r in records) == sorted(files)
    assert s.ok == len(files)


def test_a_cluster_by_address_without_workers_is_an_error(tmp_path):
    """A cluster reached by address is not the scan's to restart: after the
    timeout the scan stops with NoWorkersError, and the CLI exits 2 with the
    records written so far kept."""
    import io
    import logging

    from distributed import Client, LocalCluster

    files = corpus_files(realfiles=False)[:5]
    with LocalCluster(n_workers=0, processes=True, host="127.0.0.1", dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        with Client(cluster.scheduler_address) as client:
            t0 = time.monotonic()
            with pytest.raises(scan.NoWorkersError):
                scan.scan(files, io.StringIO(), client, scan.ScanOptions(),
                          no_workers_timeout=1.0)
            assert time.monotonic() - t0 < 30
