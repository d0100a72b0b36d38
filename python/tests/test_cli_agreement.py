"""The package gives exactly what the CLI gives: the same JSON document,
byte for byte, for every corpus file under every profile (and with --deep
and --header-only), the same dump, the same rule table. The number of
agreeing documents is printed so it can be reported."""

import json
import os

import pytest

import gguflint
from conftest import ROOT, corpus_files, run_cli, run_cli_dump

FILES = corpus_files()


def test_corpus_is_there():
    assert len([f for f in FILES if f.startswith(os.path.join(ROOT, "corpus"))]) >= 400


@pytest.mark.parametrize("profile", gguflint.PROFILES)
def test_every_corpus_file_matches_the_cli(cli, profile, capsys):
    agree = 0
    for path in FILES:
        expected, rc = run_cli(cli, "--format", "json", "--profile", profile, path)
        assert rc in (0, 1), f"{path}: CLI exit {rc}"
        report = gguflint.lint(path, profile=profile)
        assert report.to_json() == expected, path
        # the Report's own fields say what the document says
        entry = json.loads(expected)["files"][0]
        assert [f.__dict__ for f in report.findings] == entry["findings"], path
        assert report.counts == entry["summary"] and report.dropped == entry["dropped"]
        assert report.ok == (rc == 0), path
        assert report.header["file_size"] == entry["size"]
        agree += 1
    with capsys.disabled():
        print(f"\n[agreement] profile {profile}: {agree}/{len(FILES)} JSON documents identical")
    assert agree == len(FILES)


@pytest.mark.parametrize("flags,kwargs", [
    (["--deep"], {"deep": True}),
    (["--header-only"], {"header_only": True}),
    (["--profile", "security", "--select", "GG1,GG2", "--ignore", "GG106"],
     {"profile": "security", "select": ["GG1", "GG2"], "ignore": "GG106"}),
    (["--select", "container,tensor"], {"select": "container,tensor"}),
])
def test_options_match_the_cli(cli, flags, kwargs):
    for path in FILES:
        expected, _ = run_cli(cli, "--format", "json", *flags, path)
        assert gguflint.lint(path, **kwargs).to_json() == expected, (path, flags)


def test_bytes_and_file_objects_give_the_path_result():
    """The same checks whatever the input kind, given the same name."""
    for path in FILES:
        want = gguflint.lint(path).to_json()
        with open(path, "rb") as f:
            data = f.read()
        assert gguflint.lint(data, name=path).to_json() == want, path
        assert gguflint.lint(memoryview(data), name=path).to_json() == want, path
        assert gguflint.lint(bytearray(data), name=path).to_json() == want, path
        with open(path, "rb") as f:  # a regular file object is mapped
            assert gguflint.lint(f).to_json() == want, path
        import io
        assert gguflint.lint(io.BytesIO(data), name=path).to_json() == want, path


def test_dump_matches_the_cli(cli):
    n = 0
    for path in FILES:
        expected, rc = run_cli_dump(cli, path)
        if rc != 0 or not expected:
            continue
        assert gguflint.dump(path) == json.loads(expected), path
        n += 1
    assert n > 100


def test_rules_match_the_cli(cli):
    import subprocess
    md = subprocess.run([cli, "rules", "--markdown"], capture_output=True, text=True).stdout
    assert gguflint.rules_markdown() == md
    listed = subprocess.run([cli, "rules"], capture_output=True, text=True).stdout
    table = gguflint.rules()
    assert len(table) > 100
    ids = [r.id for r in table]
    assert len(set(ids)) == len(ids)
    for r in table:
        assert r.id in listed and r.slug in listed
        assert r.default_severity in ("error", "warning", "note", "off")
        assert set(r.profiles) == set(gguflint.PROFILES)


def test_version_matches_the_cli(cli):
    import subprocess
    out = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout
    assert out.split()[-1] == gguflint.__version__
