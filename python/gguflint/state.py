"""gguflint.state - the incremental state of a scan (SQLite, standard library).

One row per file ever linted, keyed by where it lives (repo: "ORG/REPO"
for the Hub, "" for a local file; path) with what identifies its content
(key: "lfs:OID" from the Hub listing, "blob:ID:SIZE" for a file outside LFS,
"stat:SIZE:MTIME_NS" for a local file) and the revision it was seen at. A
later scan skips a file whose key is unchanged and whose last lint read it
("ok"): a new commit that leaves a GGUF file's LFS object alone costs no
lint; a file without a key (an https:// URL, a mirror listing without
object ids) is always linted.

The store is written by the driver only (one process, one thread), in
transactions of COMMIT_EVERY records, so a killed scan loses at most those.
"""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any, Dict, Optional, Tuple

COMMIT_EVERY = 500
SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    repo     TEXT NOT NULL,
    path     TEXT NOT NULL,
    revision TEXT,
    key      TEXT NOT NULL,
    status   TEXT NOT NULL,
    errors   INTEGER NOT NULL DEFAULT 0,
    at       REAL NOT NULL,
    PRIMARY KEY (repo, path)
) WITHOUT ROWID;
"""


def local_key(path: str) -> Optional[str]:
    """stat:SIZE:MTIME_NS of a local file, None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return f"stat:{st.st_size}:{st.st_mtime_ns}"


class State:
    """The store at `path` (created when missing)."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)
        self.pending = 0

    def unchanged(self, repo: str, path: str, key: Optional[str],
                  revision: Optional[str] = None) -> bool:
        """True when the file was read before with this key (then its row
        moves to `revision`, so the store names the newest commit seen)."""
        if key is None:
            return False
        row = self.db.execute("SELECT key, status, revision FROM files WHERE repo=? AND path=?",
                              (repo, path)).fetchone()
        if row is None or row[0] != key or row[1] != "ok":
            return False
        if revision is not None and row[2] != revision:
            self.db.execute("UPDATE files SET revision=? WHERE repo=? AND path=?",
                            (revision, repo, path))
            self._tick()
        return True

    def record(self, where: Tuple[str, str, Optional[str], Optional[str]],
               rec: Dict[str, Any]) -> None:
        """Store the lint record `rec` of the file at `where` = (repo, path,
        revision, key); a file without a key is not stored."""
        repo, path, revision, key = where
        if key is None:
            return
        findings = rec.get("report", {}).get("findings", []) if rec.get("status") == "ok" else []
        errors = sum(1 for f in findings if f.get("severity") == "error")
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?)",
                        (repo, path, revision, key, rec.get("status", "error"), errors,
                         time.time()))
        self._tick()

    def _tick(self) -> None:
        self.pending += 1
        if self.pending >= COMMIT_EVERY:
            self.db.commit()
            self.pending = 0

    def close(self) -> None:
        self.db.commit()
        self.db.close()
