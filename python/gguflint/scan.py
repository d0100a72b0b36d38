"""gguflint.scan - lint a list of GGUF files (a whole model hub) on Dask.

    python3 -m gguflint.scan LIST [-o results.jsonl] [--scheduler ADDRESS]

LIST has one input per line: a local path, an https:// URL, an
hf://ORG/REPO[@REV]/PATH.gguf file or an hf://ORG/REPO[@REV] repository
(expanded to its .gguf files on the workers, one Hub API request each under
--api-rate: gguflint.discover, gguflint.hub); blank lines and lines starting with '#' are
skipped; '-' reads the list from standard input. Local paths are normalised
("./f" and "d//f" are "f" and "d/f": each file is linted once); a
repository whose listing fails is one "error" record and the scan goes on. Inputs are grouped into
batches, the batches are mapped to tasks on a Dask cluster (the one at
--scheduler, or a LocalCluster of --workers processes on 127.0.0.1), and one
JSON object per input is appended to the output (JSON Lines):

    {"source": ..., "status": "ok" | "error" | "timeout", "report": {...},
     "attempts": n, "seconds": s, "cpu_seconds": s, "bytes_fetched": n,
     "metadata_bytes": n}

"status" may also be "crashed": the worker died while linting the input
(a bug to report, with the file). "report" is the input's entry of the CLI's JSON report (`gguflint --format
json`), also for inputs that could not be read ("error"/"detail"). A run
resumes: inputs already in the output are skipped; with --state FILE
(gguflint.state) a rerun also skips files unchanged since the last scan.
Transient I/O failures are retried with exponential backoff, each lint has a timeout, a progress bar
goes to standard error when it is a terminal, and a summary ends the run
(files, errors by rule, bytes fetched, files/s).

The unit of work is lint_one(source, options): one gguflint.lint call and
its retries, a plain function of plain data, so the same job runs on Ray or
Spark by mapping it (see docs/SCANNING.md).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import queue
import random
import re
import sqlite3
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set,
                    TextIO, Tuple)

import gguflint
from gguflint.discover import Discovery
from gguflint.hub import HubOptions
from gguflint.state import State

# Details of I/O failures that retrying cannot fix (local files, HTTP client
# errors). Everything else an IOError says is taken as transient.
# Matched as phrases (an HTTP status only as "HTTP 4xx"): a bare "401" would
# also match a URL's port or path, which made retries depend on the port.
PERMANENT = ("No such file", "Permission denied", "Is a directory", "Not a directory",
             "not a regular file", "Invalid argument", "unsupported", "changed while")
_HTTP_CLIENT_ERROR = re.compile(r"\bHTTP 4\d\d\b")


@dataclass(frozen=True)
class ScanOptions:
    """What each lint of a scan uses; plain data, sent to the workers."""

    profile: str = "ggml"
    select: Optional[str] = None
    ignore: Optional[str] = None
    deep: bool = False
    header_only: bool = False
    timeout: float = 120.0   # seconds per attempt; 0 = none
    retries: int = 3         # extra attempts after a transient I/O failure
    backoff: float = 0.5     # first retry delay in seconds, doubled each time
    lint: str = "gguflint:lint"  # "module:function" called for each attempt (tests, wrappers)


def _transient(e: BaseException) -> bool:
    if isinstance(e, (gguflint.NotRegularFileError, gguflint.ArgumentError,
                      gguflint.UnsupportedSourceError, TypeError)):
        return False
    if isinstance(e, gguflint.IOError):
        text = f"{e} {getattr(e, 'detail', '')}"
        return not (any(p in text for p in PERMANENT) or _HTTP_CLIENT_ERROR.search(text))
    return isinstance(e, (TimeoutError, ConnectionError))


class _Runner:
    """Daemon threads that run lint attempts, so each can be given up on
    after a timeout. A C call cannot be interrupted: an abandoned attempt
    keeps its thread until it ends, and a new thread is started whenever no
    thread is idle. Threads are reused (starting one per file would cost more
    than linting a small file) and are daemons (a stuck attempt never holds
    up the process's exit)."""

    def __init__(self) -> None:
        self.jobs: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.idle = 0

    def _loop(self) -> None:
        while True:
            with self.lock:
                self.idle += 1
            fn, box, done = self.jobs.get()
            with self.lock:
                self.idle -= 1
            t0 = time.thread_time()
            try:
                value = fn()
                box.append((True, (value, time.thread_time() - t0)))
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                box.append((False, e))
            done.set()

    def run(self, fn: Callable[[], Any], timeout: float,
            on_timeout: Optional[Callable[[], None]] = None) -> Tuple[Any, float]:
        box: List[Any] = []
        done = threading.Event()
        with self.lock:
            spawn = self.idle == 0
            if spawn:
                self.idle += 1  # counted now, so concurrent callers do not all spawn
        if spawn:
            threading.Thread(target=self._start, name="gguflint-lint", daemon=True).start()
        self.jobs.put((fn, box, done))
        if not done.wait(timeout):
            if on_timeout is not None:
                on_timeout()  # the C transfer ends: the thread becomes idle again
            raise TimeoutError(f"no result after {timeout:g} s")
        ok, value = box[0]
        if ok:
            return value
        raise value

    def _start(self) -> None:
        with self.lock:
            self.idle -= 1  # _loop counts itself
        self._loop()


_RUNNER = _Runner()


def _with_timeout(fn: Callable[[], Any], timeout: float,
                  on_timeout: Optional[Callable[[], None]] = None) -> Tuple[Any, float]:
    """fn's result and the CPU seconds it used; TimeoutError when it has not
    finished within `timeout` seconds (0: no limit, run here), after calling
    on_timeout (which makes fn end)."""
    if timeout <= 0:
        t0 = time.thread_time()
        value = fn()
        return value, time.thread_time() - t0
    return _RUNNER.run(fn, timeout, on_timeout)


def lint_one(source: str, options: ScanOptions = ScanOptions(),
             lint: Callable[..., gguflint.Report] = gguflint.lint) -> Dict[str, Any]:
    """Lint one input with retries and a timeout; never raises for the input.

    Returns the JSON Lines record of the input (see the module docstring)."""
    start = time.monotonic()
    attempts = 0
    record: Dict[str, Any] = {"source": source}
    if lint is gguflint.lint and options.lint != "gguflint:lint":
        module, _, name = options.lint.partition(":")
        lint = getattr(importlib.import_module(module), name)
    while True:
        attempts += 1
        # the library's own lint is given a cancel flag and the attempt's
        # timeout as its deadline: an abandoned attempt ends in the C
        # transfer, so it never keeps a thread or a socket
        extra: Dict[str, Any] = {}
        cancel = None
        if lint is gguflint.lint:
            cancel = gguflint.Cancel()
            extra = {"cancel": cancel, "deadline": options.timeout + 1 if options.timeout else None}
        try:
            report, cpu = _with_timeout(lambda: lint(
                source, profile=options.profile, select=options.select, ignore=options.ignore,
                deep=options.deep, header_only=options.header_only, **extra), options.timeout,
                cancel.set if cancel is not None else None)
            entry = report.to_dict()
            record.update(status="ok", report=entry,
                          bytes_fetched=int(entry.get("bytes_fetched", 0)),
                          metadata_bytes=int(report.header.get("metadata_end", 0)),
                          cpu_seconds=round(cpu, 6))
            break
        except Exception as e:  # noqa: BLE001 - every failure becomes a record
            retry = attempts <= options.retries and (_transient(e) or isinstance(e, TimeoutError))
            if retry:
                delay = options.backoff * (2 ** (attempts - 1))
                time.sleep(delay * (0.5 + random.random()))  # jitter: no thundering herd
                continue
            report_json = getattr(e, "report_json", None)
            entry = (json.loads(report_json)["files"][0] if report_json
                     else {"path": source, "error": type(e).__name__, "detail": str(e)})
            record.update(status="timeout" if isinstance(e, TimeoutError) else "error",
                          report=entry, bytes_fetched=int(entry.get("bytes_fetched", 0)),
                          metadata_bytes=0)
            break
    record["attempts"] = attempts
    record["seconds"] = round(time.monotonic() - start, 6)
    return record


def lint_batch(sources: Sequence[str], options: ScanOptions = ScanOptions()) -> List[Dict[str, Any]]:
    """lint_one over a batch (one Dask task): amortises the per-task cost."""
    return [lint_one(s, options) for s in sources]


# ------------------------------------------------------------------ inputs

def read_list(lines: Iterable[str]) -> Iterator[str]:
    """Inputs of a LIST: stripped lines, without blanks and # comments."""
    for line in lines:
        s = line.strip()
        if s and not s.startswith("#"):
            yield s


def normalise(source: str) -> str:
    """A local path without "." components and repeated slashes, so that
    "f", "./f" and "d//f" name each file once ("..": kept, a link may lie
    between). URLs and "-" are kept as they are."""
    if "://" in source or source == "-":
        return source
    lead = "/" if source.startswith("/") else ""
    parts = [p for p in source.split("/") if p not in ("", ".")]
    return lead + "/".join(parts) if parts else (lead or ".")


def failure_record(source: str, err: BaseException) -> Dict[str, Any]:
    """The record of an input that was never linted (its listing failed)."""
    return {"source": source, "status": "error",
            "report": {"path": source, "error": type(err).__name__, "detail": str(err)},
            "attempts": 1, "seconds": 0.0, "bytes_fetched": 0, "metadata_bytes": 0}


def is_hf_repo(source: str) -> bool:
    """hf://ORG/REPO or hf://ORG/REPO@REV (no file path inside the repository)."""
    if not source.startswith("hf://"):
        return False
    rest = source[5:].split("@", 1)
    return rest[0].count("/") == 1 and (len(rest) == 1 or "/" not in rest[1])


def expand(source: str) -> List[str]:
    """A repository becomes its .gguf files (through the library's listing);
    anything else is itself."""
    if not is_hf_repo(source):
        return [source]
    return [f for f in gguflint.list_repository(source) if f.endswith(".gguf")]


def done_sources(path: str) -> Set[str]:
    """Inputs already in an output file. A last line cut by a killed run is
    dropped (the file is truncated back to its last complete line)."""
    done: Set[str] = set()
    if not os.path.exists(path):
        return done
    with open(path, "rb+") as f:
        data = f.read()
        end = data.rfind(b"\n") + 1
        if end != len(data):
            f.truncate(end)
    for line in data[:end].splitlines():
        try:
            done.add(json.loads(line)["source"])
        except (ValueError, KeyError, TypeError):
            continue
    return done


# ------------------------------------------------------------------ progress and summary

@dataclass
class Summary:
    """What a scan did: counts, errors by rule, bytes, rate."""

    files: int = 0
    skipped: int = 0
    ok: int = 0
    clean: int = 0
    failed: int = 0
    timeouts: int = 0
    crashed: int = 0
    retried: int = 0
    findings: int = 0
    bytes_fetched: int = 0
    metadata_bytes: int = 0
    cpu_seconds: float = 0.0
    seconds: float = 0.0
    files_with_errors_by_rule: Dict[str, int] = field(default_factory=dict)
    failures_by_error: Dict[str, int] = field(default_factory=dict)

    def add(self, rec: Dict[str, Any], rules: Counter, errors: Counter) -> None:
        self.files += 1
        self.bytes_fetched += rec.get("bytes_fetched", 0)
        self.metadata_bytes += rec.get("metadata_bytes", 0)
        self.cpu_seconds += rec.get("cpu_seconds", 0.0)
        if rec.get("attempts", 1) > 1:
            self.retried += 1
        rep = rec.get("report", {})
        if rec["status"] == "ok":
            self.ok += 1
            fs = rep.get("findings", [])
            self.findings += len(fs)
            errs = {f["rule"] for f in fs if f["severity"] == "error"}
            if not errs:
                self.clean += 1
            rules.update(errs)
        else:
            self.failed += 1
            if rec["status"] == "timeout":
                self.timeouts += 1
            if rec["status"] == "crashed":
                self.crashed += 1
            errors[rep.get("error", rec["status"])] += 1

    @property
    def files_per_second(self) -> float:
        return self.files / self.seconds if self.seconds > 0 else 0.0

    def text(self) -> str:
        lines = [
            f"{self.files} files linted in {self.seconds:.1f} s ({self.files_per_second:.1f} files/s),"
            f" {self.skipped} skipped (already in the output)",
            f"  {self.ok} read: {self.clean} without errors, {self.ok - self.clean} with errors;"
            f" {self.failed} not read ({self.timeouts} timeouts, {self.crashed} crashed a worker);"
            f" {self.retried} needed retries",
            f"  bytes fetched: {self.bytes_fetched} ({self.bytes_fetched / max(self.files, 1):.0f}"
            f" per file); metadata bytes: {self.metadata_bytes}; lint CPU time:"
            f" {self.cpu_seconds:.2f} s ({1e3 * self.cpu_seconds / max(self.ok, 1):.2f} ms per file)",
        ]
        if self.files_with_errors_by_rule:
            top = sorted(self.files_with_errors_by_rule.items(), key=lambda kv: (-kv[1], kv[0]))
            lines.append("  files with errors, by rule: " +
                         ", ".join(f"{r} {n}" for r, n in top))
        if self.failures_by_error:
            lines.append("  inputs not read, by error: " +
                         ", ".join(f"{e} {n}" for e, n in sorted(self.failures_by_error.items())))
        return "\n".join(lines)


class Progress:
    """A one-line progress bar on a terminal (or every 10% elsewhere when
    forced); redrawn at most five times a second."""

    def __init__(self, total: int, stream: TextIO, mode: str = "auto"):
        self.total, self.stream = total, stream
        self.enabled = mode == "always" or (mode == "auto" and stream.isatty())
        self.tty = stream.isatty()
        self.done = 0
        self.start = time.monotonic()
        self.last = 0.0
        self.last_decile = -1

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if now - self.last < 0.2 and self.done < self.total:
                return
            self.last = now
            frac = self.done / self.total if self.total else 1.0
            bar = "#" * int(frac * 30)
            rate = self.done / max(now - self.start, 1e-9)
            self.stream.write(f"\r[{bar:<30}] {self.done}/{self.total} {rate:.0f} files/s")
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            decile = int(10 * self.done / self.total) if self.total else 10
            if decile != self.last_decile:
                self.last_decile = decile
                self.stream.write(f"progress: {self.done}/{self.total}\n")
        self.stream.flush()


# ------------------------------------------------------------------ the run

def batches(items: Iterable[str], size: int) -> Iterator[List[str]]:
    """Lists of `size` items; `items` may be an iterator (found as the scan runs)."""
    it = iter(items)
    while True:
        b = list(itertools.islice(it, size))
        if not b:
            return
        yield b


class NoWorkersError(RuntimeError):
    """The cluster had no worker for too long and none could be brought back.
    The records written so far stay; a rerun resumes after them."""


def _bring_workers_back(client: Any, wanted: int, timeout: float) -> None:
    """Replace the workers of a cluster this process owns (a LocalCluster or
    another SpecCluster) when all of them are gone: a nanny whose worker
    died may fail to start a new one on a loaded machine, and then waits
    forever. Tasks left without a worker stay queued at the scheduler and
    run on the new workers. A cluster reached by address is not ours to
    restart: raise NoWorkersError."""
    cluster = getattr(client, "cluster", None)
    if cluster is None or not hasattr(cluster, "scale"):
        raise NoWorkersError(f"the scheduler has had no worker for {timeout:g} s")
    cluster.scale(0)
    cluster.scale(wanted)
    try:
        client.wait_for_workers(1, timeout=max(timeout, 60.0))
    except Exception as e:  # noqa: BLE001 - distributed raises its own TimeoutError
        raise NoWorkersError(f"no worker came back after a restart of the cluster ({e})") from e


def _wait_ready(running: Any, client: Any, wanted: int, no_workers_timeout: float) -> None:
    """Return when a future of `running` is done. Meanwhile look at the
    cluster once a second: after `no_workers_timeout` seconds without any
    worker, bring workers back (or raise NoWorkersError)."""
    gone_since: Optional[float] = None
    next_look = time.monotonic() + 1.0
    while not running.has_ready():
        time.sleep(0.02)
        now = time.monotonic()
        if now < next_look:
            continue
        next_look = now + 1.0
        if client.nthreads():
            gone_since = None
        elif gone_since is None:
            gone_since = now
        elif now - gone_since >= no_workers_timeout:
            _bring_workers_back(client, wanted, no_workers_timeout)
            gone_since = None


def scan(sources: Iterable[str], out: TextIO, client: Any, options: ScanOptions,
         batch_size: int = 16, window: int = 0, progress: Optional[Progress] = None,
         task_retries: int = 2, no_workers_timeout: float = 30.0,
         on_record: Optional[Callable[[Dict[str, Any]], None]] = None) -> Summary:
    """Lint `sources` on the Dask `client`, append records to `out` as they
    complete and return the summary. At most `window` batches are in flight
    (default: four per worker thread), so a list of millions never becomes
    millions of futures at once. When the cluster has had no worker for
    `no_workers_timeout` seconds, a cluster this process owns gets new
    workers; otherwise NoWorkersError is raised. `sources` may be an
    iterator (gguflint.discover.Discovery); on_record sees every record."""
    from distributed import as_completed

    summary = Summary()
    rules: Counter = Counter()
    errors: Counter = Counter()
    wanted = len(client.nthreads()) or 1
    if not window:
        threads = sum(client.nthreads().values()) or 1
        window = 4 * threads
    pending = batches(sources, max(1, batch_size))
    start = time.monotonic()
    batch_of: Dict[Any, List[str]] = {}
    solo_failures: Counter = Counter()

    def submit(b: List[str]) -> Any:
        fut = client.submit(lint_batch, b, options, pure=False, retries=task_retries)
        batch_of[fut] = b
        return fut

    def _take_result(fut: Any) -> None:
        batch = batch_of.pop(fut)
        try:
            records = fut.result()
        except Exception as e:  # noqa: BLE001 - the task failed: a worker died on it
            # Find the input that kills workers: each one alone, and a lone
            # one a second time (a task that only shared a dying worker with
            # the culprit is not the culprit).
            if len(batch) > 1 or solo_failures[batch[0]] == 0:
                for s in batch:
                    if len(batch) == 1:
                        solo_failures[s] += 1
                    running.add(submit([s]))
                return
            records = [{"source": batch[0], "status": "crashed",
                        "report": {"path": batch[0], "error": "worker died",
                                   "detail": f"{type(e).__name__}: {e}"},
                        "bytes_fetched": 0, "metadata_bytes": 0, "attempts": 1 + task_retries,
                        "seconds": 0.0}]
        finally:
            fut.release()
        for rec in records:
            out.write(json.dumps(rec, separators=(",", ":")) + "\n")
            summary.add(rec, rules, errors)
            if on_record:
                on_record(rec)
        out.flush()
        if progress:
            progress.update(len(records))
        for b in _take(pending, 1):
            running.add(submit(b))

    running = as_completed()
    for b in _take_lazily(pending, window):  # each batch goes out as soon as it is whole
        running.add(submit(b))
    while not running.is_empty():
        _wait_ready(running, client, wanted, no_workers_timeout)
        for fut in running.next_batch(block=False):
            _take_result(fut)
    summary.seconds = time.monotonic() - start
    summary.files_with_errors_by_rule = dict(rules)
    summary.failures_by_error = dict(errors)
    return summary


def _take_lazily(it: Iterator[List[str]], n: int) -> Iterator[List[str]]:
    return itertools.islice(it, n)


def _take(it: Iterator[List[str]], n: int) -> List[List[str]]:
    got = []
    for _ in range(n):
        try:
            got.append(next(it))
        except StopIteration:
            break
    return got


def make_client(scheduler: Optional[str], workers: int, threads: int) -> Any:
    """A client of the scheduler at `scheduler`, or of a LocalCluster of
    `workers` processes listening on 127.0.0.1 only (no dashboard)."""
    import logging

    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                           host="127.0.0.1", dashboard_address=None,
                           silence_logs=logging.ERROR)
    return Client(cluster)


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m gguflint.scan",
                                description="Lint a list of GGUF files on Dask (JSON Lines out).")
    p.add_argument("list", help="file with one path, URL or hf:// input per line ('-': stdin)")
    p.add_argument("-o", "--output", default="gguflint-scan.jsonl",
                   help="JSON Lines output, appended to; inputs already in it are skipped")
    p.add_argument("--scheduler", help="address of a Dask scheduler (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    p.add_argument("--threads", type=int, default=1, help="threads per LocalCluster worker")
    p.add_argument("--profile", default="ggml", choices=gguflint.PROFILES)
    p.add_argument("--select")
    p.add_argument("--ignore")
    p.add_argument("--deep", action="store_true")
    p.add_argument("--header-only", action="store_true")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per lint attempt (0: none)")
    p.add_argument("--retries", type=int, default=3, help="retries of transient I/O failures")
    p.add_argument("--batch", type=int, default=16, help="inputs per Dask task")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--summary-json", help="also write the summary as JSON to this file")
    add_hub_arguments(p)
    a = p.parse_args(argv)

    if a.workers < 1 or a.threads < 1 or a.batch < 1 or a.retries < 0:
        p.error("--workers, --threads and --batch must be at least 1, --retries at least 0")
    if a.api_rate < 0 or a.list_batch < 1:
        p.error("--api-rate must be at least 0, --list-batch at least 1")
    options = ScanOptions(profile=a.profile, select=a.select, ignore=a.ignore, deep=a.deep,
                          header_only=a.header_only, timeout=a.timeout, retries=a.retries)
    try:
        gguflint.lint(b"", profile=a.profile, select=a.select, ignore=a.ignore)
    except gguflint.ArgumentError as e:
        p.error(str(e))

    try:
        if a.list == "-":
            entries = list(read_list(sys.stdin))
        else:
            with open(a.list, encoding="utf-8", errors="surrogateescape") as f:
                entries = list(read_list(f))
        done = done_sources(a.output)
        store = State(a.state) if a.state else None
    except (OSError, sqlite3.Error) as e:
        print(f"gguflint.scan: {e}", file=sys.stderr)
        return 2
    client = make_client(a.scheduler, a.workers, a.threads)
    progress = Progress(0, sys.stderr, a.progress)
    found = Discovery(client, [normalise(e) for e in entries], done, store,
                      hub_options(client, a), a.list_batch, on_found=lambda n: setattr(progress, "total", progress.total + n))
    try:
        with open(a.output, "a", encoding="ascii") as out:  # json.dumps escapes the rest
            summary = scan(found, out, client, options, batch_size=a.batch,
                           progress=progress, on_record=found.on_record)
            errs: Counter = Counter(summary.failures_by_error)
            for ref, err in found.failed:  # listings that failed: one record each
                rec = failure_record(ref, err)
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                summary.add(rec, Counter(), errs)
            summary.failures_by_error = dict(errs)
    except NoWorkersError as e:
        print(f"gguflint.scan: {e}; the records written so far are kept in {a.output}, "
              "run again to resume", file=sys.stderr)
        return 2
    finally:
        if store is not None:
            store.close()
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and not a.scheduler:
            cluster.close()
    summary.skipped = found.stats.resumed
    print(summary.text(), file=sys.stderr)
    print(found.stats.text(), file=sys.stderr)
    if a.summary_json:
        with open(a.summary_json, "w", encoding="utf-8") as f:
            json.dump(dict(asdict(summary), files_per_second=summary.files_per_second,
                           discovery=asdict(found.stats)), f, indent=1, sort_keys=True)
    return 1 if summary.failed else 0


def add_hub_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--api-rate", type=float, default=10.0,
                   help="Hub API requests a second for the whole cluster (listing; 0: no "
                        "limit), shared equally by the worker processes")
    p.add_argument("--list-batch", type=int, default=4,
                   help="hf:// repositories listed per Dask task")
    p.add_argument("--state", help="SQLite store of what was linted (repository, revision, "
                                   "LFS object id): a rerun lints only new or changed files")


def hub_options(client: Any, a: argparse.Namespace) -> HubOptions:
    """Each worker process's share of --api-rate."""
    procs = len(client.nthreads()) or 1
    return HubOptions(rate=a.api_rate / procs, retries=a.retries)


if __name__ == "__main__":
    # Run the imported module's main, not this __main__ copy: the functions
    # sent to the workers must pickle by reference (gguflint.scan.lint_batch).
    from gguflint.scan import main as _main
    sys.exit(_main())
