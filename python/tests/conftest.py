"""Shared fixtures of the gguflint Python tests.

The tests compare the package with the gguflint CLI built from the same
sources: GGUFLINT_CLI names it (the CTest run sets it); otherwise the ci,
dev and release build folders of the checkout are tried. Corpus files come
from the repository's corpus/ and, when present, ../shared/gguf-realfiles
(never copied; tests that need them skip without them).
"""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REALFILES = os.path.join(ROOT, "..", "shared", "gguf-realfiles")


def find_cli():
    cli = os.environ.get("GGUFLINT_CLI")
    if cli and os.access(cli, os.X_OK):
        return cli
    for d in ("build-ci", "build-dev", "build-release"):
        p = os.path.join(ROOT, d, "gguflint")
        if os.access(p, os.X_OK):
            return p
    return shutil.which("gguflint")


def corpus_files(realfiles=True):
    out = []
    dirs = [os.path.join(ROOT, "corpus")]
    if realfiles and os.path.isdir(REALFILES):
        dirs.append(REALFILES)
    for d in dirs:
        for base, _, names in os.walk(d):
            out += [os.path.join(base, n) for n in names if n.endswith(".gguf")]
    return sorted(out)


@pytest.fixture(scope="session")
def cli():
    path = find_cli()
    if not path:
        pytest.skip("no gguflint CLI: set GGUFLINT_CLI or build the ci preset")
    return path


def run_cli(cli, *args, cwd=None):
    """The CLI's stdout (as text) and exit code; --isolated so no
    .gguflint.ini of the caller's folders takes part. cwd: where it runs
    (fingerprints name paths relative to the working directory)."""
    p = subprocess.run([cli, "--isolated", *args], capture_output=True, cwd=cwd)
    return p.stdout.decode("utf-8"), p.returncode


def run_cli_dump(cli, path):
    p = subprocess.run([cli, "dump", "--format", "json", path], capture_output=True)
    return p.stdout.decode("utf-8"), p.returncode
