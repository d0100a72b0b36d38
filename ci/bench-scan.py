#!/usr/bin/env python3
"""bench-scan.py - how gguflint.scan scales from 1 to 2 workers (prints tables).

    python3 ci/bench-scan.py [--site build-ci/python/site] [--repos 40] [--files 3]
                             [--latency-ms 50] [--batches 1,4,16,64] [--local 300]

1. Remote: REPOS Hub repositories of FILES small GGUF files each (copies of
   corpus/examples/valid.gguf), served by tests/support/httpd.py on
   127.0.0.1 with LATENCY ms added to every answer; the LIST names the
   repositories (hf://org/rN), so the workers list them (one API request
   each) and lint every file (a resolve and a CDN range request each).
   Scanned with 1 and 2 worker processes of 1 thread; then scanned again
   with --state, where every file is unchanged (the incremental cost).
2. Local, no latency: LOCAL corpus files per batch size, 1 and 2 workers:
   the per-task cost that the default --batch must amortise.

Prints wall time (process start to exit), the scan's own time (first
submit to last record), start-up (the difference), per-file time, requests
counted by the server, and the speed-up of 2 workers over 1. A measurement,
not a test: nothing here asserts on time. Talks to 127.0.0.1 only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def start_server(root, latency_ms):
    ports = os.path.join(root, "ports")
    env = dict(os.environ, GGUFLINT_HTTPD_LATENCY_MS=str(latency_ms))
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "support", "httpd.py"),
                             root, ports], stdin=subprocess.PIPE, env=env)
    for _ in range(200):
        if os.path.exists(ports):
            break
        time.sleep(0.05)
    port = int(open(ports).read().split()[0])
    return proc, f"http://127.0.0.1:{port}"


def server_log(url):
    with urllib.request.urlopen(url + "/_log") as r:
        log = [e for e in json.load(r) if not e["path"].startswith("/_")]
    urllib.request.urlopen(url + "/_clear").read()
    return log


def run_scan(site, lst, out_dir, tag, workers, extra=(), env_extra=None):
    out = os.path.join(out_dir, f"{tag}.jsonl")
    summ = os.path.join(out_dir, f"{tag}.json")
    for p in (out, summ):
        if os.path.exists(p):
            os.remove(p)
    env = dict(os.environ, PYTHONPATH=site, PYTHONDONTWRITEBYTECODE="1", **(env_extra or {}))
    t0 = time.monotonic()
    p = subprocess.run([PY, "-m", "gguflint.scan", lst, "-o", out, "--workers", str(workers),
                        "--threads", "1", "--progress", "never", "--summary-json", summ,
                        *extra], env=env, capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1) or not os.path.exists(summ):
        sys.exit(f"scan failed ({p.returncode}):\n{p.stderr}")
    with open(summ) as f:
        s = json.load(f)
    os.remove(out)
    return wall, s


def remote(a, tmp):
    hf = os.path.join(tmp, "hf", "org")
    src = os.path.join(ROOT, "corpus", "examples", "valid.gguf")
    for r in range(a.repos):
        d = os.path.join(hf, f"r{r}")
        os.makedirs(d)
        for i in range(a.files):
            shutil.copyfile(src, os.path.join(d, f"m{i}.gguf"))
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write("not a model\n")
    lst = os.path.join(tmp, "repos.txt")
    with open(lst, "w") as f:
        f.write("".join(f"hf://org/r{r}\n" for r in range(a.repos)))
    proc, url = start_server(tmp, a.latency_ms)
    env = {"HF_ENDPOINT": url}
    rows = []
    try:
        server_log(url)
        for w in (1, 2):
            wall, s = run_scan(a.site, lst, tmp, f"remote{w}", w, ["--api-rate", "0"], env)
            log = server_log(url)
            rows.append((w, wall, s, log))
        state = os.path.join(tmp, "state.db")
        run_scan(a.site, lst, tmp, "inc-first", 2, ["--api-rate", "0", "--state", state], env)
        server_log(url)
        wall, s = run_scan(a.site, lst, tmp, "inc-again", 2,
                           ["--api-rate", "0", "--state", state], env)
        inc = (wall, s, server_log(url))
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    n = a.repos * a.files
    print(f"remote: {a.repos} repositories x {a.files} files = {n} files of "
          f"{os.path.getsize(src)} bytes, {a.latency_ms} ms per answer, batch 16 (default)")
    print("| workers | wall s | scan s | start-up s | files/s | ms per file | API requests |"
          " file requests | speed-up (scan) | speed-up (wall) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    base = rows[0]
    for w, wall, s, log in rows:
        api = sum(1 for e in log if e["path"].startswith("/api/"))
        print(f"| {w} | {wall:.2f} | {s['seconds']:.2f} | {wall - s['seconds']:.2f} |"
              f" {s['files'] / s['seconds']:.1f} | {1e3 * s['seconds'] / s['files']:.1f} |"
              f" {api} | {len(log) - api} | {base[2]['seconds'] / s['seconds']:.2f} |"
              f" {base[1] / wall:.2f} |")
    wall, s, log = inc
    api = sum(1 for e in log if e["path"].startswith("/api/"))
    d = s["discovery"]
    print(f"incremental rerun (2 workers, --state, nothing changed): {wall:.2f} s wall,"
          f" {s['files']} files linted, {d['unchanged']} of {d['found']} skipped,"
          f" {api} API requests, {len(log) - api} file requests")


def local(a, tmp):
    files = []
    for base, _, names in os.walk(os.path.join(ROOT, "corpus")):
        files += sorted(os.path.join(base, n) for n in names if n.endswith(".gguf"))
    files = sorted(files)[:a.local]
    lst = os.path.join(tmp, "local.txt")
    with open(lst, "w") as f:
        f.write("\n".join(files) + "\n")
    print(f"\nlocal: {len(files)} corpus files, no latency, scan seconds (wall seconds)")
    print("| batch | 1 worker | 2 workers | speed-up (scan) |")
    print("|---|---|---|---|")
    for b in a.batches:
        got = {}
        for w in (1, 2):
            got[w] = run_scan(a.site, lst, tmp, f"local{w}", w, ["--batch", str(b)])
        s1, s2 = got[1][1]["seconds"], got[2][1]["seconds"]
        print(f"| {b} | {s1:.2f} ({got[1][0]:.1f}) | {s2:.2f} ({got[2][0]:.1f}) |"
              f" {s1 / s2:.2f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--site", default=os.path.join(ROOT, "build-ci", "python", "site"))
    p.add_argument("--repos", type=int, default=40)
    p.add_argument("--files", type=int, default=3)
    p.add_argument("--latency-ms", type=float, default=50)
    p.add_argument("--local", type=int, default=300)
    p.add_argument("--batches", default="1,4,16,64",
                   type=lambda s: [int(x) for x in s.split(",") if x])
    p.add_argument("--skip-local", action="store_true")
    a = p.parse_args()
    if not os.path.isdir(os.path.join(a.site, "gguflint")):
        sys.exit(f"no built package in {a.site} (ctest --preset ci -R python_build)")
    with tempfile.TemporaryDirectory(prefix="bench-scan-") as tmp:
        remote(a, tmp)
        if not a.skip_local:
            local(a, tmp)


if __name__ == "__main__":
    main()
