"""lint(..., base=): a LoRA adapter checked against its base model.

The base is the committed corpus/examples/valid.gguf (a tiny llama whose
blk.0.attn_q.weight is [32, 32]); the adapters are written here. The CLI's
--base gives the same findings."""

import os
import struct
import threading

import pytest

import gguflint

from conftest import ROOT, run_cli

VALID = os.path.join(ROOT, "corpus", "examples", "valid.gguf")


def _s(text):
    b = text.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def adapter(arch="llama", b_ne1=32):
    """A LoRA adapter for blk.0.attn_q.weight, written as
    convert_lora_to_gguf.py lays it out (f32 halves, alpha as f32)."""
    kvs = b""
    if arch is not None:
        kvs += _s("general.architecture") + struct.pack("<I", 8) + _s(arch)
    kvs += _s("general.type") + struct.pack("<I", 8) + _s("adapter")
    kvs += _s("adapter.type") + struct.pack("<I", 8) + _s("lora")
    kvs += _s("adapter.lora.alpha") + struct.pack("<If", 6, 16.0)
    n_kv = 4 if arch is not None else 3
    tensors = [("blk.0.attn_q.weight.lora_a", (32, 8)),
               ("blk.0.attn_q.weight.lora_b", (8, b_ne1))]
    infos, off, sizes = b"", 0, []
    for name, ne in tensors:
        infos += _s(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
        infos += struct.pack("<IQ", 0, off)
        size = 4 * ne[0] * ne[1]
        sizes.append(size)
        off += (size + 31) // 32 * 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), n_kv) + kvs + infos
    head += b"\0" * (-len(head) % 32)
    return head + b"\0" * off


def ids(report):
    return sorted(f.rule for f in report.findings)


def test_clean_pair():
    report = gguflint.lint(adapter(), base=VALID, profile="strict")
    assert report.findings == []


def test_arch_mismatch_and_shape():
    report = gguflint.lint(adapter(arch="qwen2"), base=VALID)
    assert ids(report) == ["GG530"]
    f = report.findings[0]
    assert f.path == 'kv["general.architecture"]'
    report = gguflint.lint(adapter(b_ne1=48), base=VALID)
    assert ids(report) == ["GG566"]
    # without a base neither is known
    assert gguflint.lint(adapter(arch="qwen2")).findings == []


def test_base_object_reused_across_threads():
    good, bad = adapter(), adapter(b_ne1=48)
    results = []
    with gguflint.Base(VALID) as base:
        def work(data):
            results.append(ids(gguflint.lint(data, base=base)))
        threads = [threading.Thread(target=work, args=(good if i % 2 else bad,))
                   for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(results) == [[]] * 4 + [["GG566"]] * 4
    with pytest.raises(gguflint.ArgumentError):
        gguflint.lint(good, base=base)  # closed


def test_base_problems():
    with pytest.raises(gguflint.ArgumentError, match="LoRA adapter, not a model"):
        gguflint.Base(adapter())
    with pytest.raises(gguflint.IOError):
        gguflint.lint(adapter(), base=os.path.join(ROOT, "no-such-base.gguf"))


def test_same_as_cli(cli, tmp_path):
    path = tmp_path / "a.gguf"
    path.write_bytes(adapter(arch="qwen2"))
    out, code = run_cli(cli, "--format", "json", "--base", VALID, str(path))
    assert code == 1
    assert '"GG530"' in out
    report = gguflint.lint(str(path), base=VALID)
    assert ids(report) == ["GG530"]
