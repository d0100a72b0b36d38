"""gguflint.hub - list Hugging Face repositories for a scan, on the workers.

One repository is one API request where the Hub allows it:

    GET $HF_ENDPOINT/api/models/ORG/REPO/revision/REV?blobs=true

answers the commit the revision names ("sha") and every file of the
repository ("siblings": rfilename, size, and for LFS files lfs.sha256, the
object id), so the listing, the pinning of the revision and the keys of the
incremental state all come from one answer. The library's own listing
(gguflint.list_repository: the revision call, then the recursive tree API
page by page) is the fallback for a mirror that answers without siblings.

Every request waits for a token of a process-wide TokenBucket; the driver
gives each worker process an equal share of the scan's --api-rate, so the
whole cluster stays under it.

Everything in an answer is hostile: sizes must be non-negative integers,
paths relative without empty, '.' or '..' components, backslashes or
control characters, object ids hexadecimal; the body is read to at most
MAX_BODY bytes.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import gguflint

DEFAULT_ENDPOINT = "https://huggingface.co"
MAX_BODY = 64 << 20  # a repository of ~200k files; more is refused
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_HEX = re.compile(r"^[0-9a-f]{40,64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


class TokenBucket:
    """At most `rate` acquisitions a second on average (bursts of `burst`),
    shared by the threads of one process. rate 0: no limit. `clock` and
    `sleep` are injectable so tests need no wall time."""

    def __init__(self, rate: float = 0.0, burst: float = 1.0,
                 clock=time.monotonic, sleep=time.sleep) -> None:
        self.lock = threading.Lock()
        self.clock, self.sleep = clock, sleep
        self.configure(rate, burst)

    def configure(self, rate: float, burst: float = 1.0) -> None:
        with self.lock:
            self.rate, self.burst = max(0.0, rate), max(1.0, burst)
            self.tokens, self.last = self.burst, self.clock()

    def take(self) -> float:
        """Wait for a token; returns the seconds waited."""
        waited = 0.0
        while True:
            with self.lock:
                if self.rate <= 0:
                    return waited
                now = self.clock()
                self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
                self.last = now
                if self.tokens >= 1.0 - 1e-9:  # a sleep of (1 - tokens) / rate is enough
                    self.tokens = max(0.0, self.tokens - 1.0)
                    return waited
                need = (1.0 - self.tokens) / self.rate
            self.sleep(need)
            waited += need


BUCKET = TokenBucket()  # this process's share of --api-rate


@dataclass(frozen=True)
class HubOptions:
    """Plain data sent with each listing task."""

    rate: float = 0.0        # API requests a second for this worker process (0: no limit)
    retries: int = 3
    backoff: float = 0.5
    timeout: float = 60.0


def parse_repo(ref: str) -> Optional[tuple]:
    """(org, repo, rev) of hf://ORG/REPO[@REV], None when it is not one."""
    if not ref.startswith("hf://"):
        return None
    body, _, rev = ref[5:].partition("@")
    org, sep, repo = body.partition("/")
    if not sep or "/" in repo or not _NAME.match(org) or not _NAME.match(repo):
        return None
    if "@" in ref and (not rev or any(c in rev for c in "/\\") or
                       any(ord(c) < 0x21 or ord(c) == 0x7f for c in rev)):
        return None
    return org, repo, rev or "main"


def safe_path(p: Any) -> bool:
    if not isinstance(p, str) or not p or len(p) > 1024 or p.startswith("/") or "\\" in p:
        return False
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in p):
        return False
    return all(part not in ("", ".", "..") for part in p.split("/"))


def _get_json(url: str, opts: HubOptions, stats: Dict[str, int]) -> Any:
    """GET url as JSON with the rate limit and retries of 429/5xx/connection
    failures; raises gguflint.IOError (status 404 and the like in .http)."""
    token = os.environ.get("HF_TOKEN")
    attempt = 0
    while True:
        attempt += 1
        BUCKET.take()
        stats["requests"] += 1
        req = urllib.request.Request(url, headers={"Accept": "application/json"})
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=opts.timeout) as resp:
                body = resp.read(MAX_BODY + 1)
            if len(body) > MAX_BODY:
                raise gguflint.IOError("I/O error", detail=f"{url}: answer over {MAX_BODY} bytes")
            return json.loads(body)
        except urllib.error.HTTPError as e:
            transient = e.code == 429 or e.code >= 500
            err = gguflint.IOError("I/O error", detail=f"{url}: HTTP {e.code}")
            err.http = e.code  # type: ignore[attr-defined]
        except (urllib.error.URLError, OSError, ValueError) as e:
            transient = not isinstance(e, ValueError)
            err = gguflint.IOError("I/O error", detail=f"{url}: {type(e).__name__}: {e}")
            err.http = 0  # type: ignore[attr-defined]
        if not transient or attempt > opts.retries:
            raise err
        time.sleep(opts.backoff * (2 ** (attempt - 1)) * (0.5 + random.random()))


def _entries(siblings: Any) -> Optional[List[Dict[str, Any]]]:
    """The .gguf files of a siblings list: path, size, key (LFS object id,
    else the git blob id); None when the list is malformed."""
    if not isinstance(siblings, list):
        return None
    out = []
    for s in siblings:
        if not isinstance(s, dict):
            return None
        path, size = s.get("rfilename"), s.get("size")
        if not safe_path(path):
            return None
        if not str(path).endswith(".gguf"):
            continue
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
            return None
        lfs = s.get("lfs")
        if not isinstance(lfs, dict):
            lfs = {}
        oid = lfs.get("sha256") or lfs.get("oid")
        blob = s.get("blobId")
        if isinstance(oid, str) and _HEX.match(oid):
            key = f"lfs:{oid}"
        elif isinstance(blob, str) and _HEX.match(blob):
            key = f"blob:{blob}:{size}"
        else:
            key = None
        out.append({"path": path, "size": size, "key": key})
    return out


def list_repo(ref: str, opts: HubOptions = HubOptions()) -> Dict[str, Any]:
    """The listing record of one repository; never raises for the input:
    {"repo", "revision", "files": [{"source", "path", "size", "key"}],
     "requests", "seconds", "error"}."""
    start = time.monotonic()
    stats = {"requests": 0}
    rec: Dict[str, Any] = {"repo": ref, "revision": None, "files": [], "error": None}
    parsed = parse_repo(ref)
    if parsed is None:
        rec["error"] = "not a repository reference hf://ORG/REPO[@REV]"
    else:
        org, repo, rev = parsed
        endpoint = (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")
        url = (f"{endpoint}/api/models/{org}/{repo}/revision/"
               f"{urllib.parse.quote(rev, safe='')}?blobs=true")
        try:
            info = _get_json(url, opts, stats)
            sha = info.get("sha") if isinstance(info, dict) else None
            pinned = sha if isinstance(sha, str) and _COMMIT.match(sha) else rev
            entries = _entries(info.get("siblings")) if isinstance(info, dict) else None
            if isinstance(info, dict) and "siblings" not in info:
                entries = _fallback(f"hf://{org}/{repo}@{pinned}", stats)
            if entries is None:
                raise gguflint.IOError("I/O error", detail=f"{url}: a malformed siblings list")
            rec["revision"] = pinned
            q = urllib.parse.quote(pinned, safe="")
            rec["files"] = [dict(e, source=f"hf://{org}/{repo}@{q}/{e['path']}")
                            for e in sorted(entries, key=lambda e: e["path"])]
        except gguflint.Error as e:
            rec["error"] = f"{e} {getattr(e, 'detail', '')}".strip()
    rec["requests"] = stats["requests"]
    rec["seconds"] = round(time.monotonic() - start, 6)
    return rec


def _fallback(ref: str, stats: Dict[str, int]) -> List[Dict[str, Any]]:
    """The library's listing (revision + tree pages): no sizes or keys."""
    stats["requests"] += 1  # at least; the library does not say how many
    BUCKET.take()
    out = []
    for u in gguflint.list_repository(ref):
        path = u.split("/", 4)[4] if u.count("/") >= 4 else ""
        if u.endswith(".gguf") and safe_path(path):
            out.append({"path": path, "size": None, "key": None})
    return out


def list_batch(refs: Sequence[str], opts: HubOptions = HubOptions()) -> List[Dict[str, Any]]:
    """list_repo over a batch (one Dask task)."""
    if BUCKET.rate != opts.rate:  # once per process: a new batch gets no new burst
        BUCKET.configure(opts.rate, burst=max(1.0, opts.rate))
    return [list_repo(r, opts) for r in refs]
