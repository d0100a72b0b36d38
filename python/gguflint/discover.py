"""gguflint.discover - the inputs of a scan, found on the workers as it runs.

Discovery(client, entries, ...) is an iterator of the sources to lint: the
LIST's files first, then the .gguf files of its hf://ORG/REPO[@REV]
repositories as the listing tasks (gguflint.hub.list_batch, a few
repositories each, at most `window` in flight) come back from the workers,
so linting starts with the first listing and the driver never lists
anything itself. A source already in the output (resume) or unchanged
since the scan recorded in the state store (gguflint.state) is skipped and
counted. on_record(rec) stores each lint record in the state store.
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

import gguflint
from gguflint import hub
from gguflint.state import State, local_key

Where = Tuple[str, str, Optional[str], Optional[str]]


@dataclass
class DiscoveryStats:
    repos: int = 0
    repos_failed: int = 0
    api_requests: int = 0
    listing_seconds: float = 0.0
    found: int = 0
    resumed: int = 0    # already in the output
    unchanged: int = 0  # same key as in the state store

    def text(self) -> str:
        return (f"  listing: {self.repos} repositories ({self.repos_failed} failed) with"
                f" {self.api_requests} API requests in {self.listing_seconds:.2f} worker-s;"
                f" incremental: {self.unchanged} of {self.found} files unchanged since the"
                f" last scan (skipped), {self.resumed} already in the output")


class Discovery:
    def __init__(self, client: Any, entries: Iterable[str], done: Set[str],
                 state: Optional[State] = None, hub_options: hub.HubOptions = hub.HubOptions(),
                 list_batch: int = 4, window: int = 0,
                 on_found: Optional[Callable[[int], None]] = None,
                 errors: Any = sys.stderr) -> None:
        self.client, self.done, self.state = client, done, state
        self.hub_options, self.list_batch = hub_options, max(1, list_batch)
        self.window = window or 2 * (sum(client.nthreads().values()) or 1)
        self.on_found, self.errors = on_found, errors
        self.stats = DiscoveryStats()
        self.where: Dict[str, Where] = {}
        self.failed: List[Tuple[str, BaseException]] = []  # (repository, error) not in done
        self.seen: Set[str] = set()
        self.repos: List[str] = []
        self.files: List[str] = []
        for e in entries:
            (self.repos if hub.parse_repo(e) is not None else self.files).append(e)

    def _admit(self, source: str, where: Where) -> bool:
        if source in self.seen:
            return False
        self.seen.add(source)
        self.stats.found += 1
        if source in self.done:
            self.stats.resumed += 1
            return False
        if self.state is not None and self.state.unchanged(where[0], where[1], where[3],
                                                           where[2]):
            self.stats.unchanged += 1
            return False
        self.where[source] = where
        if self.on_found:
            self.on_found(1)
        return True

    def __iter__(self) -> Iterator[str]:
        from distributed import as_completed

        chunks = iter([self.repos[i:i + self.list_batch]
                       for i in range(0, len(self.repos), self.list_batch)])
        running = as_completed()

        def submit_next(n: int) -> None:
            for b in itertools.islice(chunks, n):
                running.add(self.client.submit(hub.list_batch, b, self.hub_options, pure=False))

        submit_next(self.window)
        for f in self.files:
            local = "://" not in f
            where = ("", f, None, local_key(f) if local else None)
            if self._admit(f, where):
                yield f
        for fut in running:
            try:
                listings = fut.result()
            finally:
                fut.release()
            submit_next(1)
            for rec in listings:
                yield from self._take(rec)

    def _take(self, rec: Dict[str, Any]) -> Iterator[str]:
        self.stats.repos += 1
        self.stats.api_requests += rec.get("requests", 0)
        self.stats.listing_seconds += rec.get("seconds", 0.0)
        if rec.get("error"):
            self.stats.repos_failed += 1
            print(f"gguflint.scan: {rec['repo']!a}: listing failed: {rec['error']!a}",
                  file=self.errors)
            if rec["repo"] not in self.done and rec["repo"] not in self.seen:
                self.seen.add(rec["repo"])
                self.failed.append((rec["repo"], gguflint.IOError(rec["error"])))
            return
        parsed = hub.parse_repo(rec["repo"])
        repo = f"{parsed[0]}/{parsed[1]}" if parsed else rec["repo"]
        for f in rec["files"]:
            if self._admit(f["source"], (repo, f["path"], rec["revision"], f["key"])):
                yield f["source"]

    def on_record(self, rec: Dict[str, Any]) -> None:
        where = self.where.pop(rec.get("source", ""), None)
        if where is not None and self.state is not None:
            self.state.record(where, rec)
