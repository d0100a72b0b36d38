"""scan_bench.py - the measurements behind docs/CAPACITY-PLAN.md.

    PYTHONPATH=<site with gguflint> /usr/bin/python3 python/bench/scan_bench.py [--out FILE.json]

Builds two trees in a temporary folder (never committed): "small", the
repository's corpus copied until there are at least 1 000 files (hostile and
tiny files, 1 KB on average), and "vocab", the real vocabulary files of
../shared/gguf-realfiles hard-linked 100 times (0.6-4 MB of metadata each,
like real models' metadata). For each tree it measures, in one run:

- serial: gguflint.lint in a loop on one thread (files/s);
- threads: the same on a 2-thread pool (the GIL is released during a lint);
- dask-1 / dask-2: `gguflint.scan` on a LocalCluster of 1 and 2 worker
  processes (files/s including the scheduler's cost), bytes fetched and
  metadata bytes per file;
- http (when this build reads URLs): the same scan over the local HTTP server
  on 127.0.0.1: body bytes and requests the server counted per file.

A third tree, "models", holds gen_bench's a.gguf (15.7 MB of metadata) and
b.gguf (128 MiB of tensors) 20 times each (gen_bench from a build folder of
this checkout): over HTTP only their metadata must be fetched.

Numbers are wall-clock on a shared machine: compare rows of one run, do not
read them as absolute. Not run by CI.
"""

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

import gguflint  # noqa: E402
from gguflint import scan  # noqa: E402


def build_small(dest, minimum=1000):
    files = []
    src = [os.path.join(b, n) for b, _, ns in os.walk(os.path.join(ROOT, "corpus"))
           for n in ns if n.endswith(".gguf")]
    c = 0
    while len(files) < minimum:
        for s in src:
            d = os.path.join(dest, f"copy{c}", os.path.relpath(s, os.path.join(ROOT, "corpus")))
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copyfile(s, d)
            files.append(d)
        c += 1
    return files


def build_vocab(dest, copies=100):
    real = os.path.join(ROOT, "..", "shared", "gguf-realfiles")
    if not os.path.isdir(real):
        return []
    src = sorted(os.path.join(real, n) for n in os.listdir(real) if n.endswith(".gguf"))
    files = []
    for c in range(copies):
        os.makedirs(os.path.join(dest, f"copy{c}"), exist_ok=True)
        for s in src:
            d = os.path.join(dest, f"copy{c}", os.path.basename(s))
            try:
                os.link(s, d)
            except OSError:
                shutil.copyfile(s, d)
            files.append(d)
    return files


def find_gen_bench():
    for d in ("build-release", "build-ci", "build-dev"):
        p = os.path.join(ROOT, d, "tests", "gen_bench")
        if os.access(p, os.X_OK):
            return p
    return None


def build_models(dest, copies=20):
    """gen_bench's a.gguf (15.7 MB of metadata, a 256k vocabulary and 1 001
    tensors) and b.gguf (128 MiB of F16 tensors behind little metadata),
    hard-linked `copies` times each: whole models, where a remote lint must
    fetch the metadata and nothing of the data."""
    gen = find_gen_bench()
    if not gen:
        return []
    import subprocess
    os.makedirs(dest, exist_ok=True)
    subprocess.run([gen, dest, "a", "b"], check=True, env=dict(os.environ, BENCH_B_MIB="128"),
                   stdout=subprocess.DEVNULL)
    files = []
    for c in range(copies):
        os.makedirs(os.path.join(dest, f"copy{c}"), exist_ok=True)
        for name in ("a.gguf", "b.gguf"):
            d = os.path.join(dest, f"copy{c}", name)
            os.link(os.path.join(dest, name), d)
            files.append(d)
    return files


def timed(fn):
    t0 = time.monotonic()
    n = fn()
    return n, time.monotonic() - t0


def bench_tree(name, files, root_dir, have_url):
    rows = []
    total = sum(os.path.getsize(f) for f in files)
    n, dt = timed(lambda: sum(1 for f in files if gguflint.lint(f) is not None))
    rows.append({"tree": name, "mode": "serial (1 thread)", "files": n, "seconds": dt,
                 "files_per_s": n / dt})
    with ThreadPoolExecutor(2) as pool:
        n, dt = timed(lambda: sum(1 for _ in pool.map(gguflint.lint, files)))
    rows.append({"tree": name, "mode": "threads (2)", "files": n, "seconds": dt,
                 "files_per_s": n / dt})
    for workers in (1, 2):
        client = scan.make_client(None, workers, 1)
        try:
            client.submit(scan.lint_batch, [files[0]]).result()  # workers warm
            out = io.StringIO()
            s = scan.scan(files, out, client, scan.ScanOptions())
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()
        rows.append({"tree": name, "mode": f"dask LocalCluster, {workers} worker(s)",
                     "files": s.files, "seconds": s.seconds, "files_per_s": s.files_per_second,
                     "bytes_fetched_per_file": s.bytes_fetched / s.files,
                     "metadata_bytes_per_file": s.metadata_bytes / s.files,
                     "lint_cpu_ms_per_file": 1e3 * s.cpu_seconds / max(s.ok, 1),
                     "file_bytes_per_file": total / len(files)})
        if have_url:
            from httpserver import serve
            server = serve(root_dir)
            urls = [f"{server.url}/{os.path.relpath(f, root_dir)}" for f in files]
            client = scan.make_client(None, workers, 1)
            try:
                out = io.StringIO()
                s = scan.scan(urls, out, client, scan.ScanOptions(header_only=False))
            finally:
                cluster = client.cluster
                client.close()
                cluster.close()
            st = server.stats
            server.stop()
            rows.append({"tree": name, "mode": f"http 127.0.0.1, dask {workers} worker(s)",
                         "files": s.files, "seconds": s.seconds,
                         "files_per_s": s.files_per_second,
                         "bytes_fetched_per_file": s.bytes_fetched / s.files,
                         "server_body_bytes_per_file": st["body_bytes"] / s.files,
                         "server_requests_per_file": st["requests"] / s.files,
                         "lint_cpu_ms_per_file": 1e3 * s.cpu_seconds / max(s.ok, 1),
                         "metadata_bytes_per_file": s.metadata_bytes / s.files,
                         "file_bytes_per_file": total / len(files)})
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", help="write the rows as JSON here")
    a = p.parse_args()
    have_url = bool(getattr(gguflint, "HAVE_URL", False))
    rows = []
    with tempfile.TemporaryDirectory(prefix="gguflint-scan-bench-") as tmp:
        small = build_small(os.path.join(tmp, "small"))
        rows += bench_tree("small (corpus)", small, os.path.join(tmp, "small"), have_url)
        vocab = build_vocab(os.path.join(tmp, "vocab"))
        if vocab:
            rows += bench_tree("vocab (real files)", vocab, os.path.join(tmp, "vocab"), have_url)
        models = build_models(os.path.join(tmp, "models"))
        if models:
            rows += bench_tree("models (gen_bench)", models, os.path.join(tmp, "models"),
                               have_url)
    print(f"{'tree':20} {'mode':40} {'files':>6} {'files/s':>9} {'meta B/file':>12} "
          f"{'file B/file':>12} "
          f"{'fetched B/file':>15} {'req/file':>9} {'CPU ms/file':>11}")
    for r in rows:
        print(f"{r['tree']:20} {r['mode']:40} {r['files']:>6} {r['files_per_s']:>9.0f} "
              f"{r.get('metadata_bytes_per_file', 0):>12.0f} {r.get('file_bytes_per_file', 0):>12.0f} "
              f"{r.get('server_body_bytes_per_file', r.get('bytes_fetched_per_file', 0)):>15.0f} "
              f"{r.get('server_requests_per_file', 0):>9.2f} "
              f"{r.get('lint_cpu_ms_per_file', 0):>11.3f}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
