"""URL inputs (http:// and hf://), served by the local HTTP server on
127.0.0.1 only: the package gives the CLI's JSON for the same URL, fetches
only what the metadata needs, lists repositories through the Hub's API
paths, and its retries (the library's, then the scanner's) survive a flaky
server. Skipped when this build has no URL support."""

import json
import os
import shutil

import pytest

import gguflint
from gguflint import scan
from conftest import ROOT, run_cli

pytestmark = pytest.mark.skipif(not gguflint.HAVE_URL,
                                reason="this libgguflint has no URL support")

CORPUS = os.path.join(ROOT, "corpus")


@pytest.fixture(scope="module")
def server():
    from httpserver import serve
    s = serve(CORPUS)
    yield s
    s.stop()


@pytest.fixture()
def hub(tmp_path, monkeypatch):
    """A Hub look-alike: ORG/REPO folders, HF_ENDPOINT pointing at it."""
    from httpserver import serve
    repo = tmp_path / "org" / "repo"
    (repo / "sub").mkdir(parents=True)
    for name in ("valid.gguf", "hostile.gguf"):
        shutil.copyfile(os.path.join(CORPUS, "examples", name), repo / name)
    shutil.copyfile(os.path.join(CORPUS, "examples", "valid.gguf"), repo / "sub" / "x.gguf")
    (repo / "README.md").write_text("not a model\n")
    s = serve(str(tmp_path))
    monkeypatch.setenv("HF_ENDPOINT", s.url)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    yield s
    s.stop()


def corpus_urls(server, sub):
    names = sorted(n for n in os.listdir(os.path.join(CORPUS, sub)) if n.endswith(".gguf"))
    return [(f"{server.url}/{sub}/{n}", os.path.join(CORPUS, sub, n)) for n in names]


def test_urls_match_the_cli(cli, server, capsys):
    agree = 0
    for url, path in corpus_urls(server, "examples") + corpus_urls(server, "conformance"):
        expected, rc = run_cli(cli, "--format", "json", url)
        assert rc in (0, 1), (url, rc)
        report = gguflint.lint(url)
        assert report.to_json() == expected, url
        size = os.path.getsize(path)
        assert report.header["file_size"] == size
        # a small file comes in one ranged request, and nothing more
        assert report.fetch == {"bytes_fetched": size, "requests": 1}, url
        agree += 1
    with capsys.disabled():
        print(f"\n[agreement] URLs: {agree} JSON documents identical to the CLI's")


def test_hf_repository_listing_and_lint(cli, hub):
    files = gguflint.list_repository("hf://org/repo")
    assert files == ["hf://org/repo@main/hostile.gguf", "hf://org/repo@main/sub/x.gguf",
                     "hf://org/repo@main/valid.gguf"]
    for url in files:
        expected, _ = run_cli(cli, "--format", "json", url)
        assert gguflint.lint(url).to_json() == expected
    assert scan.expand("hf://org/repo") == files
    with pytest.raises(gguflint.IOError, match="404"):
        gguflint.list_repository("hf://org/missing")


def test_library_retries_a_flaky_server(server):
    url, path = corpus_urls(server, "examples")[0]
    server.fail_next[url[len(server.url):]] = 2
    r = gguflint.lint(url)
    assert r.fetch["requests"] == 3 and r.header["file_size"] == os.path.getsize(path)


def test_scanner_retries_when_the_library_gives_up(server):
    url, _ = corpus_urls(server, "examples")[0]
    path = url[len(server.url):]
    server.fail_next[path] = 4  # the library's 1 + 3 attempts all fail
    rec = scan.lint_one(url, scan.ScanOptions(retries=2, backoff=0.01))
    assert rec["status"] == "ok" and rec["attempts"] == 2, rec
    assert rec["bytes_fetched"] > 0
    server.fail_next[path] = 0


def test_missing_url_is_not_retried(server):
    rec = scan.lint_one(f"{server.url}/examples/missing.gguf",
                        scan.ScanOptions(retries=3, backoff=0.01))
    assert rec["status"] == "error" and rec["attempts"] == 1
    assert "404" in json.dumps(rec["report"])
