"""The package's `gguflint` command: runs the gguflint program built with
the package (gguflint/_bin/gguflint, the CLI of the same sources), with the
arguments given. pre-commit's `language: python` hooks use it, so they need
no gguflint on PATH."""

from __future__ import annotations

import os
import sys
from typing import List, Optional


def program() -> str:
    """The path of the bundled program."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "gguflint")


def main(argv: Optional[List[str]] = None) -> int:
    exe = program()
    args = sys.argv[1:] if argv is None else argv
    if not os.access(exe, os.X_OK):
        sys.stderr.write(f"gguflint: this package has no gguflint program ({exe}): it was "
                         "built without one (see python/README.md, GGUFLINT_CLI_BINARY)\n")
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe, *args])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
