"""gguflint.diff(): the same document as `gguflint diff --format json`, the
exact fields of known differences (a changed key, a reshaped tensor, a
template line, tensor data with data=True), identical files, and errors."""

import json
import os
import subprocess
import sys

import pytest

import gguflint

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests"))
from gguf_write import STR, gguf  # noqa: E402

TEMPLATE = "{% for m in messages %}\n{{ m.content }}\n{% endfor %}\n"


def model(name="m", template=TEMPLATE, ne=(4,), vals=(1.0, 2.0, 3.0, 4.0)):
    return gguf([("general.architecture", STR, "llama"), ("general.name", STR, name),
                 ("tokenizer.chat_template", STR, template)],
                [("w", list(ne), list(vals))])


@pytest.fixture()
def files(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("GGUFLINT_CLI", cli)

    def write(name, data):
        p = tmp_path / name
        p.write_bytes(data)
        return str(p)
    return write


def test_same_files(files, cli):
    a, b = files("a.gguf", model()), files("b.gguf", model())
    d = gguflint.diff(a, b, program=cli)
    assert d["same"] is True and d["keys"] == [] and d["tensors"] == []
    assert d["data_compared"] is False
    assert gguflint.diff(a, b, data=True, program=cli)["data_compared"] is True


def test_changed_key_and_agreement_with_cli(files, cli):
    a, b = files("a.gguf", model()), files("b.gguf", model(name="n"))
    d = gguflint.diff(a, b, program=cli)
    assert d["same"] is False
    assert d["keys"] == [{"key": "general.name", "change": "changed",
                          "a": {"type": "str", "value": "m"}, "b": {"type": "str", "value": "n"}}]
    out = subprocess.run([cli, "diff", "--format", "json", a, b], capture_output=True)
    assert out.returncode == 1
    assert json.loads(out.stdout) == d


def test_reshaped_tensor_and_template_line(files, cli):
    t2 = TEMPLATE.replace("{{ m.content }}", "{{ m.content | trim }}")
    a, b = files("a.gguf", model()), files("b.gguf", model(template=t2, ne=(2, 2)))
    d = gguflint.diff(a, b, program=cli)
    assert d["tensors"] == [{"name": "w", "change": "changed", "what": ["shape"],
                             "a": {"type": "f32", "n_dims": 1, "shape": [4]},
                             "b": {"type": "f32", "n_dims": 2, "shape": [2, 2]}}]
    assert d["templates"][0]["lines"] == [
        {"op": "-", "line": 2, "text": "{{ m.content }}"},
        {"op": "+", "line": 2, "text": "{{ m.content | trim }}"}]


def test_data(files, cli):
    a, b = files("a.gguf", model()), files("b.gguf", model(vals=(1.0, 2.0, 3.0, 9.0)))
    assert gguflint.diff(a, b, program=cli)["same"] is True
    d = gguflint.diff(a, b, data=True, program=cli)
    assert d["same"] is False and d["tensors"][0]["what"] == ["data"]


def test_errors(files, cli, tmp_path):
    a = files("a.gguf", model())
    with pytest.raises(gguflint.IOError):
        gguflint.diff(a, str(tmp_path / "missing.gguf"), program=cli)
    with pytest.raises(gguflint.ArgumentError):
        gguflint.diff(a, "x\0y", program=cli)
    # a path that starts with '-' is a path, not an option
    dash = files("-x.gguf", model())
    os.chdir(tmp_path)
    assert gguflint.diff("-x.gguf", a, program=cli)["same"] is True
    assert dash
