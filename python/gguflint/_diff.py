"""gguflint.diff(): what changed between two GGUF files, for the test
suites of GGUF writers (a converter compared with a reference output, two
revisions of one model). It runs `gguflint diff --format json` - the
bundled program of the package, else $GGUFLINT_CLI, else `gguflint` on
PATH - and returns its document (docs/schemas/gguflint-diff.schema.json):
header fields, keys added/removed/changed, tensors added/removed/changed
(shape, type and, with data=True, data by SHA-256), the chat templates
line by line, and "same"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any, Dict, Optional, Union

from ._cli import program as _bundled
from ._errors import ArgumentError, Error, IOError

PathLike = Union[str, "os.PathLike[str]"]


def _program(explicit: Optional[str]) -> str:
    for p in (explicit, _bundled(), os.environ.get("GGUFLINT_CLI")):
        if p and os.access(p, os.X_OK):
            return p
    found = shutil.which("gguflint")
    if found:
        return found
    raise Error("gguflint.diff needs the gguflint program: this package has none bundled, "
                "$GGUFLINT_CLI is not set and there is no gguflint on PATH")


def diff(a: PathLike, b: PathLike, data: bool = False, *,
         program: Optional[str] = None) -> Dict[str, Any]:
    """Compare the GGUF files a and b (a shard NAME-00001-of-0000N.gguf stands
    for its whole split set). data=True also reads every tensor's data and
    compares the SHA-256 digests. Returns the JSON document of
    `gguflint diff --format json` as a dict; result["same"] is True when
    nothing differs. Raises gguflint.IOError when a file cannot be read (or
    is not GGUF), gguflint.ArgumentError for a path that is not a string."""
    paths = []
    for given in (a, b):
        path = os.fspath(given)
        if not isinstance(path, str):
            raise ArgumentError(f"diff takes str paths, not {type(path).__name__}", status=5)
        if "\0" in path:
            raise ArgumentError("the path contains a NUL character", status=5)
        paths.append(path)
    cmd = [_program(program), "diff", "--format", "json"] + (["--data"] if data else [])
    # "--" so a path that starts with '-' is a path
    run = subprocess.run(cmd + ["--", *paths], capture_output=True)
    if run.returncode in (0, 1):
        doc: Dict[str, Any] = json.loads(run.stdout.decode("utf-8"))
        return doc
    detail = run.stderr.decode("utf-8", "backslashreplace").strip()
    raise IOError(f"gguflint diff {paths[0]} {paths[1]}: {detail or 'exit ' + str(run.returncode)}",
                  status=1, detail=detail, source=paths[0])
