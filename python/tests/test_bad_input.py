"""Bad input to the API: wrong types, closed and text-mode files, NUL bytes in
names, unknown profiles and rules, unreadable paths, a huge bytes object.
Each gives a clear exception of the documented class (or a report), never a
crash or a silent wrong answer."""

import io
import os
import resource
import struct

import pytest

import gguflint
from conftest import ROOT

VALID = os.path.join(ROOT, "corpus", "examples", "valid.gguf")


@pytest.mark.parametrize("bad", [None, 42, 3.5, ["a.gguf"], {"path": "a"}, object(), True])
def test_wrong_type(bad):
    with pytest.raises(TypeError):
        gguflint.lint(bad)
    with pytest.raises(TypeError):
        gguflint.dump(bad)


def test_closed_file():
    f = open(VALID, "rb")
    f.close()
    with pytest.raises(gguflint.ArgumentError, match="closed"):
        gguflint.lint(f)
    assert issubclass(gguflint.ArgumentError, ValueError)
    b = io.BytesIO(b"GGUF")
    b.close()
    with pytest.raises(ValueError):
        gguflint.lint(b)


def test_text_mode_file():
    with open(VALID, "r", encoding="latin-1") as f:
        with pytest.raises(TypeError, match="binary"):
            gguflint.lint(f)


def test_file_object_not_at_start_is_read_from_its_position():
    with open(VALID, "rb") as f:
        data = f.read()
    with open(VALID, "rb") as f:
        f.seek(4)
        r = gguflint.lint(f)
    assert r.header["file_size"] == len(data) - 4
    assert not r.ok  # no magic there


def test_nul_in_strings():
    with pytest.raises(gguflint.ArgumentError):
        gguflint.lint(VALID + "\0.txt")
    with pytest.raises(gguflint.ArgumentError):
        gguflint.lint(b"GGUF", name="a\0b")
    with pytest.raises(gguflint.ArgumentError):
        gguflint.lint(VALID, select="GG1\0")


def test_unknown_profile_and_rules():
    with pytest.raises(gguflint.ArgumentError, match="profile"):
        gguflint.lint(VALID, profile="paranoid")
    with pytest.raises(gguflint.ArgumentError, match="GG999"):
        gguflint.lint(VALID, select=["GG999"])
    with pytest.raises(gguflint.ArgumentError, match="nonsense"):
        gguflint.lint(VALID, ignore="nonsense")
    with pytest.raises(TypeError):
        gguflint.lint(VALID, select=[1, 2])
    with pytest.raises(TypeError):
        gguflint.lint(VALID, profile=None)


def test_unreadable_paths(tmp_path):
    with pytest.raises(gguflint.IOError) as e:
        gguflint.lint(str(tmp_path / "missing.gguf"))
    assert isinstance(e.value, OSError)
    assert e.value.status == 1 and "No such file" in e.value.detail
    assert '"error":"I/O error"' in e.value.report_json
    with pytest.raises(gguflint.NotRegularFileError):
        gguflint.lint(str(tmp_path))
    fifo = tmp_path / "fifo.gguf"
    os.mkfifo(fifo)
    with pytest.raises(gguflint.NotRegularFileError):
        gguflint.lint(fifo)  # never blocks on the FIFO


@pytest.mark.parametrize("url", ["https://example.invalid/m.gguf", "hf://org/repo/m.gguf"])
def test_url_without_url_support(url):
    if getattr(gguflint, "HAVE_URL", False):
        pytest.skip("this build reads URLs (tested with the local server)")
    with pytest.raises(gguflint.UnsupportedSourceError):
        gguflint.lint(url)


def test_empty_and_tiny_inputs():
    for data in (b"", b"G", b"GGUF", b"GGUF\x03\x00\x00\x00"):
        r = gguflint.lint(data)
        assert not r.ok and r.findings and r.header["file_size"] == len(data)
    assert gguflint.lint(io.BytesIO(b"")).findings[0].rule == "GG001"


def test_writable_buffers_are_not_held():
    ba = bytearray(open(VALID, "rb").read())
    gguflint.lint(ba)
    ba.extend(b"x")  # would raise BufferError if an export were still held
    r = gguflint.lint(ba)
    assert any(f.rule.startswith("GG3") for f in r.findings)  # the trailing byte


def test_huge_bytes_object(tmp_path):
    """A bytes object past 2 GiB: borrowed, not copied, and every size and
    offset stays exact past 32 bits. (Read from a sparse file: one 2 GiB
    allocation, never two.)"""
    size = (1 << 31) + 4096
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, 0)
    sparse = tmp_path / "huge.bin"
    with open(sparse, "wb") as f:
        f.write(header)
        f.truncate(size)
    try:
        with open(sparse, "rb") as f:
            data = f.read()
    except MemoryError:
        pytest.skip("not enough memory for a 2 GiB bytes object")
    assert isinstance(data, bytes) and len(data) == size
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = gguflint.lint(data)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert r.header["file_size"] == size
    assert r.header["is_gguf"] and r.header["metadata_complete"]
    assert any(f.offset >= 24 for f in r.findings)  # the trailing bytes are reported
    assert grown_kib < 256 * 1024, f"peak RSS grew {grown_kib} KiB: the input was copied"
    del data


def test_exceptions_are_one_hierarchy():
    for cls in (gguflint.IOError, gguflint.NotRegularFileError, gguflint.NoMemoryError,
                gguflint.StateError, gguflint.ArgumentError, gguflint.InternalError,
                gguflint.UnsupportedSourceError):
        assert issubclass(cls, gguflint.Error)


class Endless(io.RawIOBase):
    """A stream that never ends (zeros after a GGUF header)."""

    def readable(self):
        return True

    def readinto(self, b):
        b[:] = bytes(len(b))
        return len(b)


def test_endless_stream_is_bounded(monkeypatch):
    monkeypatch.setattr(gguflint, "STREAM_MAX", 1 << 20)
    with pytest.raises(gguflint.IOError, match="longer than"):
        gguflint.lint(Endless())


def test_stream_cap_is_the_clis_and_can_be_set():
    # issue 25: the cap was 1 GiB, 16 times the CLI's --stdin-max
    assert gguflint.STREAM_MAX == 64 << 20

    class Counting(Endless):
        got = 0

        def readinto(self, b):
            Counting.got += len(b)
            return super().readinto(b)

    with pytest.raises(gguflint.IOError, match="longer than 65536 bytes"):
        gguflint.lint(Counting(), max_stream=1 << 16)
    assert Counting.got <= (1 << 16) + 1
    with pytest.raises(gguflint.ArgumentError):
        gguflint.lint(Endless(), max_stream=-1)


def test_stream_without_fileno_is_read():
    data = open(VALID, "rb").read()

    class Chunky:
        def __init__(self):
            self.pos = 0

        def read(self, n=-1):
            n = 7 if n is None or n < 0 else min(n, 7)  # short reads
            out = data[self.pos:self.pos + n]
            self.pos += len(out)
            return out

    assert gguflint.lint(Chunky(), name=VALID).to_json() == gguflint.lint(VALID).to_json()


def test_pipe_is_read(tmp_path):
    data = open(VALID, "rb").read()
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        assert gguflint.lint(f, name=VALID).to_json() == gguflint.lint(VALID).to_json()
