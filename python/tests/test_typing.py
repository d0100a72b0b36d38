"""The package's type hints check (mypy, Debian python3-mypy) and a typed
caller type-checks against the installed package (py.typed is shipped)."""

import os
import subprocess
import sys
import textwrap

import pytest

import gguflint

mypy_api = pytest.importorskip("mypy.api", reason="python3-mypy is not installed")

PKG = os.path.dirname(gguflint.__file__)


def test_py_typed_is_shipped():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("mypy-cache"))


def test_package_type_checks(cache):
    out, err, rc = mypy_api.run(["--ignore-missing-imports", "--cache-dir", cache, PKG])
    assert rc == 0, out + err


def test_a_typed_caller_type_checks(tmp_path, cache):
    caller = tmp_path / "caller.py"
    caller.write_text(textwrap.dedent('''
        import gguflint
        from typing import List
        r: gguflint.Report = gguflint.lint("m.gguf", profile="security", select=["GG1"])
        fs: List[gguflint.Finding] = r.findings
        off: int = fs[0].offset
        ok: bool = r.ok
        doc: str = r.to_json()
        rules: List[gguflint.Rule] = gguflint.rules()
        bad: int = r.to_json()  # the one error expected
    '''))
    out, err, rc = mypy_api.run(["--cache-dir", cache, "--python-executable", sys.executable,
                                 str(caller)])
    assert rc == 1 and out.count("error:") == 1 and "caller.py:10" in out, (out, err)
