#!/usr/bin/env python3
"""check_json.py - every JSON document gguflint prints must parse strictly and
follow the documented schema (README "JSON output", schema version 1).

usage: check_json.py GGUFLINT [DIR ...]

Runs `gguflint --format json` and `gguflint dump --format json` on every
.gguf file under each DIR (a DIR that does not exist is skipped), and on
hostile files written here: random bytes, every prefix of a small GGUF file
with NaN/inf floats, nested arrays and odd keys, a file whose keys, values and
tensor names hold control bytes, bidi controls and invalid UTF-8, and more.
Each output is decoded as strict UTF-8 and parsed with the json module,
rejecting NaN/Infinity constants, duplicate object keys and lone surrogates.
Exits 1 on any failure, 0 otherwise.
"""

import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

TIMEOUT = 120
failures = []
checked = {"lint": 0, "dump": 0}


def fail(what, msg):
    failures.append(f"{what}: {msg}")
    if len(failures) <= 50:
        print(f"FAIL {what}: {msg}", file=sys.stderr)


# ----------------------------------------------------------- strict parsing

class StrictError(ValueError):
    pass


def _reject_constant(name):
    raise StrictError(f"non-standard constant {name}")


def _no_duplicates(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise StrictError(f"duplicate key {k!r}")
        obj[k] = v
    return obj


def _check_strings(v, where="$"):
    """Every string (and key) must be encodable: no lone surrogates."""
    if isinstance(v, str):
        v.encode("utf-8")  # raises UnicodeEncodeError on a lone surrogate
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _check_strings(x, f"{where}[{i}]")
    elif isinstance(v, dict):
        for k, x in v.items():
            k.encode("utf-8")
            _check_strings(x, f"{where}.{k}")
    elif isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise StrictError(f"non-finite number at {where}")


def parse_strict(raw, what):
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        fail(what, f"output is not UTF-8: {e}")
        return None
    if not text.endswith("\n") or text.count("\n") != 1:
        fail(what, "expected exactly one line ending in a newline")
    try:
        doc = json.loads(text, parse_constant=_reject_constant,
                         object_pairs_hook=_no_duplicates)
        _check_strings(doc)
    except (ValueError, UnicodeEncodeError) as e:
        fail(what, f"invalid JSON: {e}; output starts {text[:200]!r}")
        return None
    return doc


# ------------------------------------------------------------ schema checks

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def need(obj, key, pred, what, desc):
    if not isinstance(obj, dict) or key not in obj:
        fail(what, f"missing field {key!r}")
        return False
    if not pred(obj[key]):
        fail(what, f"field {key!r} is {obj[key]!r}, expected {desc}")
        return False
    return True


RULE_RE = re.compile(r"^GG\d{3}$")
SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
FAMILIES = {"container", "kv", "tensor", "data", "model", "tokenizer", "split", "security"}
SEVERITIES = ("error", "warning", "note")


def need_header(obj, what):
    """The GGUF header numbers a lint file entry and a dump document share."""
    need(obj, "version", is_int, what, "an int")
    need(obj, "big_endian", lambda v: isinstance(v, bool), what, "a bool")
    need(obj, "tensor_count", lambda v: is_int(v) and v >= 0, what, "a count")
    need(obj, "kv_count", lambda v: is_int(v) and v >= 0, what, "a count")
    need(obj, "alignment", lambda v: is_int(v) and v > 0, what, "an alignment")


def check_lint_doc(doc, what, expect_files, max_per_rule=None):
    if not isinstance(doc, dict):
        fail(what, "top level is not an object")
        return
    need(doc, "schema_version", lambda v: is_int(v) and v == 1, what, "1")
    if need(doc, "tool", lambda v: isinstance(v, dict), what, "an object"):
        need(doc["tool"], "name", lambda v: v == "gguflint", what, '"gguflint"')
        need(doc["tool"], "version", lambda v: isinstance(v, str) and v, what, "a string")
    if not need(doc, "files", lambda v: isinstance(v, list), what, "a list"):
        return
    files = doc["files"]
    if len(files) != expect_files:
        fail(what, f"{len(files)} file entries, expected {expect_files}")
    totals = {s: 0 for s in SEVERITIES}
    dropped_total = 0
    for fi, f in enumerate(files):
        fw = f"{what} files[{fi}]"
        if not isinstance(f, dict):
            fail(fw, "not an object")
            continue
        need(f, "path", lambda v: isinstance(v, str), fw, "a string")
        if "error" in f:
            need(f, "error", lambda v: isinstance(v, str) and v, fw, "a string")
            need(f, "detail", lambda v: isinstance(v, str), fw, "a string")
            continue
        need(f, "size", lambda v: is_int(v) and v >= 0, fw, "a size")
        need(f, "gguf", lambda v: isinstance(v, bool), fw, "a bool")
        need(f, "complete", lambda v: isinstance(v, bool), fw, "a bool")
        need(f, "bytes_needed", lambda v: is_int(v) and v >= 0, fw, "a size")
        if f.get("complete") is False and is_int(f.get("bytes_needed")) and is_int(f.get("size")):
            if f["bytes_needed"] <= f["size"]:
                fail(fw, "an incomplete input must need more bytes than it has")
        if f.get("gguf") is True:
            need_header(f, fw)
        need(f, "dropped", lambda v: is_int(v) and v >= 0, fw, "a count")
        dropped_total += f.get("dropped", 0) if is_int(f.get("dropped")) else 0
        if not need(f, "findings", lambda v: isinstance(v, list), fw, "a list"):
            continue
        counts = {s: 0 for s in SEVERITIES}
        per_rule = {}
        prev = -1
        size = f.get("size") if is_int(f.get("size")) else None
        for ni, n in enumerate(f["findings"]):
            nw = f"{fw} findings[{ni}]"
            if not isinstance(n, dict):
                fail(nw, "not an object")
                continue
            need(n, "rule", lambda v: isinstance(v, str) and RULE_RE.match(v), nw, "GGnnn")
            need(n, "slug", lambda v: isinstance(v, str) and SLUG_RE.match(v), nw, "a slug")
            need(n, "family", lambda v: v in FAMILIES, nw, "a family")
            need(n, "severity", lambda v: v in SEVERITIES, nw, "error|warning|note")
            need(n, "offset", lambda v: is_int(v) and v >= 0, nw, "an offset")
            need(n, "length", lambda v: is_int(v) and v >= 0, nw, "a length")
            need(n, "path", lambda v: isinstance(v, str), nw, "a string")
            need(n, "message", lambda v: isinstance(v, str) and v, nw, "a message")
            off = n.get("offset")
            if is_int(off):
                if off < prev:
                    fail(nw, f"offset {off} before the previous finding's {prev}")
                prev = off
                if size is not None and off > size:
                    fail(nw, f"offset {off} past the file size {size}")
            if n.get("severity") in counts:
                counts[n["severity"]] += 1
            per_rule[n.get("rule")] = per_rule.get(n.get("rule"), 0) + 1
        if max_per_rule is not None:
            for r, k in per_rule.items():
                if k > max_per_rule:
                    fail(fw, f"{k} findings of {r}, limit {max_per_rule}")
        if need(f, "summary", lambda v: isinstance(v, dict), fw, "an object"):
            for s in SEVERITIES:
                if f["summary"].get(s) != counts[s]:
                    fail(fw, f"summary.{s} = {f['summary'].get(s)!r}, findings have {counts[s]}")
                totals[s] += counts[s]
    if need(doc, "summary", lambda v: isinstance(v, dict), what, "an object"):
        s = doc["summary"]
        if s.get("files") != len(files):
            fail(what, f"summary.files = {s.get('files')!r}, {len(files)} entries")
        for k in SEVERITIES:
            if s.get(k) != totals[k]:
                fail(what, f"summary.{k} = {s.get(k)!r}, files add up to {totals[k]}")
        if s.get("dropped") != dropped_total:
            fail(what, f"summary.dropped = {s.get('dropped')!r}, files add up to {dropped_total}")


VALUE_TYPES = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr",
               "u64", "i64", "f64"}


def check_dump_doc(doc, what):
    if not isinstance(doc, dict):
        fail(what, "top level is not an object")
        return
    need(doc, "schema_version", lambda v: is_int(v) and v == 1, what, "1")
    need(doc, "file_size", lambda v: is_int(v) and v >= 0, what, "a size")
    need(doc, "gguf", lambda v: isinstance(v, bool), what, "a bool")
    if doc.get("gguf") is True:
        need_header(doc, what)
        need(doc, "metadata_complete", lambda v: isinstance(v, bool), what, "a bool")
        if doc.get("metadata_complete") is True:
            need(doc, "data_start", lambda v: is_int(v) and v >= 0, what, "an offset")
    if not need(doc, "kvs", lambda v: isinstance(v, list), what, "a list"):
        return
    for i, kv in enumerate(doc["kvs"]):
        kw = f"{what} kvs[{i}]"
        need(kv, "key", lambda v: isinstance(v, str), kw, "a string")
        need(kv, "offset", lambda v: is_int(v) and v >= 0, kw, "an offset")
        need(kv, "type", lambda v: v in VALUE_TYPES, kw, "a value type")
        if kv.get("type") == "arr":
            need(kv, "elem_type", lambda v: v in VALUE_TYPES, kw, "a value type")
            need(kv, "count", lambda v: is_int(v) and v >= 0, kw, "a count")
            need(kv, "first", lambda v: isinstance(v, list), kw, "a list")
            if isinstance(kv.get("first"), list) and is_int(kv.get("count")):
                if len(kv["first"]) > kv["count"]:
                    fail(kw, f"{len(kv['first'])} elements shown of {kv['count']}")
        elif isinstance(kv, dict) and "value" not in kv:
            fail(kw, "missing field 'value'")
    if need(doc, "tensors", lambda v: isinstance(v, list), what, "a list"):
        for i, t in enumerate(doc["tensors"]):
            tw = f"{what} tensors[{i}]"
            need(t, "name", lambda v: isinstance(v, str), tw, "a string")
            need(t, "type_id", lambda v: is_int(v) and v >= 0, tw, "an int")
            need(t, "type", lambda v: v is None or isinstance(v, str), tw, "a string or null")
            need(t, "dims", lambda v: isinstance(v, list) and all(is_int(x) for x in v), tw,
                 "a list of ints")
            need(t, "n_dims", lambda v: is_int(v) and v >= 0, tw, "an int")
            need(t, "offset", lambda v: is_int(v) and v >= 0, tw, "an offset")
            need(t, "nbytes", lambda v: v is None or (is_int(v) and v >= 0), tw, "int or null")
    if doc.get("gguf") is True and doc.get("metadata_complete") is True:
        if len(doc["kvs"]) != doc.get("kv_count"):
            fail(what, f"{len(doc['kvs'])} kvs dumped, kv_count {doc.get('kv_count')}")
        if isinstance(doc.get("tensors"), list) and len(doc["tensors"]) != doc.get("tensor_count"):
            fail(what, f"{len(doc['tensors'])} tensors dumped, tensor_count {doc.get('tensor_count')}")


# ----------------------------------------------------------------- running

def run(cli, args, what, ok_codes, stdin=None):
    try:
        p = subprocess.run([cli] + args, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fail(what, f"timed out after {TIMEOUT}s")
        return None
    if p.returncode not in ok_codes:
        fail(what, f"exit {p.returncode} (expected {sorted(ok_codes)}); "
                   f"stderr {p.stderr[:300]!r}")
        return None
    return p.stdout


def lint(cli, paths, what, extra=(), ok_codes=(0, 1), max_per_rule=None):
    out = run(cli, ["--format", "json", *extra, "--", *paths], what, set(ok_codes))
    if out is None:
        return None
    doc = parse_strict(out, what)
    if doc is not None:
        check_lint_doc(doc, what, len(paths), max_per_rule)
    checked["lint"] += 1
    return doc


def dump(cli, path, what):
    """dump exits 0 for a GGUF file whose metadata was read to the end, 1 for
    anything else (not GGUF, truncated, unreadable layout)."""
    try:
        p = subprocess.run([cli, "dump", "--format", "json", path], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fail(what, f"timed out after {TIMEOUT}s")
        return None
    if p.returncode not in (0, 1):
        fail(what, f"exit {p.returncode} (expected 0 or 1); stderr {p.stderr[:300]!r}")
        return None
    doc = parse_strict(p.stdout, what)
    if doc is not None:
        check_dump_doc(doc, what)
        complete = doc.get("gguf") is True and doc.get("metadata_complete") is True
        if p.returncode != (0 if complete else 1):
            fail(what, f"exit {p.returncode} for gguf={doc.get('gguf')} "
                       f"metadata_complete={doc.get('metadata_complete')}")
    checked["dump"] += 1
    return doc


def check_file(cli, path, label=None):
    label = label or path
    lint(cli, [path], f"lint {label}")
    dump(cli, path, f"dump {label}")


# ------------------------------------------------------- hostile file maker

VT = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "u32": 4, "i32": 5, "f32": 6, "bool": 7,
      "str": 8, "arr": 9, "u64": 10, "i64": 11, "f64": 12}
FMT = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "B", 10: "Q", 11: "q", 12: "d"}


class Gguf:
    """A tiny GGUF writer that writes whatever it is told."""

    def __init__(self, version=3, big_endian=False):
        self.e = ">" if big_endian else "<"
        self.v1 = version == 1
        self.kvs = []
        self.infos = []
        self.version = version

    def n(self, v):  # a length field
        return struct.pack(self.e + ("I" if self.v1 else "Q"), v & (0xFFFFFFFF if self.v1 else
                                                                    0xFFFFFFFFFFFFFFFF))

    def s(self, b):
        return self.n(len(b)) + b

    def scalar(self, t, v):
        if t == 8:
            return self.s(v)
        return struct.pack(self.e + FMT[t], v)

    def kv(self, key, t, value, raw=None):
        body = raw if raw is not None else self.scalar(t, value)
        self.kvs.append(self.s(key) + struct.pack(self.e + "I", t) + body)

    def arr(self, key, et, values, count=None):
        body = struct.pack(self.e + "I", et) + self.n(len(values) if count is None else count)
        body += b"".join(self.scalar(et, v) for v in values)
        self.kvs.append(self.s(key) + struct.pack(self.e + "I", 9) + body)

    def raw_kv(self, blob):
        self.kvs.append(blob)

    def tensor(self, name, dims, ggml_type, offset):
        self.infos.append(self.s(name) + struct.pack(self.e + "I", len(dims)) +
                          b"".join(self.n(d) for d in dims) +
                          struct.pack(self.e + "IQ", ggml_type, offset))

    def build(self, data=b"", align=32):
        hdr = b"GGUF" + struct.pack(self.e + "I", self.version)
        hdr += self.n(len(self.infos)) + self.n(len(self.kvs))
        out = hdr + b"".join(self.kvs) + b"".join(self.infos)
        if self.infos:
            out += b"\0" * ((-len(out)) % align)
        return out + data


def rich_file():
    """Mostly valid, with every value type, non-finite floats, nested and
    empty arrays, odd keys and two tensors."""
    g = Gguf()
    nan = float("nan")
    inf = float("inf")
    g.kv(b"general.architecture", 8, b"llama")
    g.kv(b"general.alignment", 4, 32)
    g.kv(b"general.name", 8, b'quote " backslash \\ tab \t newline \n')
    g.kv(b"llama.u8", 0, 255)
    g.kv(b"llama.i8", 1, -128)
    g.kv(b"llama.u16", 2, 65535)
    g.kv(b"llama.i16", 3, -32768)
    g.kv(b"llama.i32", 5, -2147483648)
    g.kv(b"llama.u64", 10, 2**64 - 1)
    g.kv(b"llama.i64", 11, -2**63)
    g.kv(b"llama.f32_nan", 6, nan)
    g.kv(b"llama.f32_inf", 6, inf)
    g.kv(b"llama.f32_neg_inf", 6, -inf)
    g.kv(b"llama.f32_denormal", 6, 1e-45)
    g.kv(b"llama.f64_nan", 12, nan)
    g.kv(b"llama.f64_neg_inf", 12, -inf)
    g.kv(b"llama.f64_max", 12, 1.7976931348623157e308)
    g.kv(b"llama.f64_neg_zero", 12, -0.0)
    g.kv(b"llama.bool", 7, 1)
    g.kv(b"llama.bool_odd", 7, 0x80)
    g.arr(b"llama.f32s", 6, [nan, inf, -inf, 0.5, -0.0])
    g.arr(b"llama.f64s", 12, [nan, -inf, 1e300])
    g.arr(b"llama.empty", 4, [])
    g.arr(b"tokenizer.ggml.tokens", 8,
          [b"<s>", b'"', b"\\", b"\x00", b"\x1b[2J", b"\xe2\x80\xae", b"\xff\xfe", b"\xed\xa0\x80",
           b"\xf0\x9f\x98\x80", b"\xc2\x85", b"end"])
    # an array of arrays: nested [u8 x2], [u8 x1]
    inner = (struct.pack("<I", 0) + g.n(2) + b"\x01\x02" + struct.pack("<I", 0) + g.n(1) + b"\x03")
    g.raw_kv(g.s(b"llama.nested") + struct.pack("<I", 9) + struct.pack("<I", 9) + g.n(2) + inner)
    g.kv(b'Odd."Key"\\Name', 4, 1)
    g.kv(b"", 4, 2)  # an empty key
    g.tensor(b"token_embd.weight", [8, 4], 1, 0)   # f16: 64 bytes
    g.tensor(b"output_norm.weight", [8], 0, 64)    # f32: 32 bytes
    return g.build(b"\0" * 96)


def weird_file():
    """Control bytes, bidi controls and invalid UTF-8 in keys, values and
    tensor names."""
    g = Gguf()
    g.kv(b"general.architecture", 8, b"llama")
    bad = [bytes([c]) for c in range(0x00, 0x20)] + [b"\x7f", b"\x80", b"\xc0\xaf", b"\xe2\x80",
                                                      b"\xed\xb0\x80", b"\xf4\x90\x80\x80",
                                                      b"\xe2\x80\xae", b"\xe2\x80\x8b",
                                                      b"\xe2\x81\xa6", b"\xef\xbb\xbf",
                                                      b"\xc2\x9b", b"\xff"]
    for i, b in enumerate(bad):
        g.kv(b"k" + b + b"." + str(i).encode(), 8, b"v" + b + b"\\" + b + b'"')
    g.tensor(b"t\x1b[31m\xe2\x80\xae\xff", [8], 0, 0)
    g.tensor(b"u\x00v\x07", [8], 0, 32)
    g.tensor(b"\xc0\x80", [8], 0, 64)
    return g.build(b"\0" * 96)


def hostile_variants(valid):
    """(name, bytes) pairs of assorted damaged files."""
    out = []
    rng = random.Random(20240126)
    for i, n in enumerate([1, 3, 4, 7, 8, 23, 24, 25, 64, 257, 4096]):
        out.append((f"random{i}.gguf", bytes(rng.getrandbits(8) for _ in range(n))))
        out.append((f"magic_random{i}.gguf",
                    b"GGUF" + bytes(rng.getrandbits(8) for _ in range(n))))
    out.append(("empty.gguf", b""))
    out.append(("lfs.gguf", b"version https://git-lfs.github.com/spec/v1\noid sha256:"
                + b"0" * 64 + b"\nsize 12345\n"))
    out.append(("ggjt.gguf", b"tjgg" + b"\0" * 60))
    out.append(("fugg.gguf", b"FUGG" + valid[4:]))
    # huge counts and lengths
    for v in (2**32, 2**63, 2**64 - 1):
        out.append((f"kvcount_{v}.gguf", valid[:16] + struct.pack("<Q", v) + valid[24:]))
        out.append((f"tcount_{v}.gguf", valid[:8] + struct.pack("<Q", v) + valid[16:]))
        out.append((f"keylen_{v}.gguf", valid[:24] + struct.pack("<Q", v) + valid[32:]))
    # both header counts at their maximum: the longest dump header
    out.append(("huge_counts.gguf", b"GGUF" + struct.pack("<IQQ", 3, 2**64 - 1, 2**64 - 1)))
    out.append(("huge_counts_be.gguf", b"GGUF" + struct.pack(">IQQ", 3, 2**64 - 1, 2**64 - 1)))
    for ver in (0, 1, 2, 4, 0x03000000, 0xFFFFFFFF):
        out.append((f"version_{ver}.gguf", valid[:4] + struct.pack("<I", ver) + valid[8:]))
    # byte flips
    for i in range(40):
        b = bytearray(valid)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.getrandbits(8)
        out.append((f"flip{i}.gguf", bytes(b)))
    # a big-endian and a v1 file
    g = Gguf(3, big_endian=True)
    g.kv(b"general.architecture", 8, b"llama")
    g.arr(b"a.f32", 6, [float("nan"), 1.0])
    g.tensor(b"w", [8], 0, 0)
    out.append(("big_endian.gguf", g.build(b"\0" * 32)))
    g = Gguf(1)
    g.kv(b"general.architecture", 8, b"llama")
    g.arr(b"tokenizer.ggml.tokens", 8, [b"a", b"\xff", b"\x1b"])
    out.append(("v1.gguf", g.build()))
    # an array with a count far beyond the bytes present
    g = Gguf()
    g.arr(b"a.big", 8, [], count=2**62)
    out.append(("array_count.gguf", g.build()))
    return out


# -------------------------------------------------------------------- main

def gguf_files(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for n in sorted(filenames):
            if n.endswith(".gguf"):
                found.append(os.path.join(dirpath, n))
    return found


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cli = argv[1]
    if not os.access(cli, os.X_OK):
        print(f"check_json: {cli} is not an executable", file=sys.stderr)
        return 2

    real = []
    for d in argv[2:]:
        if not os.path.isdir(d):
            print(f"check_json: {d} absent: skipped")
            continue
        files = gguf_files(d)
        print(f"check_json: {len(files)} .gguf files under {d}")
        real.extend(files)
    for p in real:
        check_file(cli, p)
    if real:
        lint(cli, real, "lint all files at once")
        lint(cli, real, "lint --deep --max-findings-per-rule 1",
             extra=("--deep", "--max-findings-per-rule", "1"), max_per_rule=1)

    with tempfile.TemporaryDirectory(prefix="gguflint-json-") as tmp:
        def put(name, data):
            p = os.path.join(tmp, name)
            with open(p, "wb") as f:
                f.write(data)
            return p

        rich = rich_file()
        weird = weird_file()
        hostile = [put("rich.gguf", rich), put("weird.gguf", weird)]
        for name, data in hostile_variants(rich):
            hostile.append(put(name, data))
        for p in hostile:
            check_file(cli, p, os.path.basename(p))
            lint(cli, [p], f"lint --deep {os.path.basename(p)}", extra=("--deep",))

        # rich.gguf must dump its non-finite floats as strings, not NaN
        doc = dump(cli, hostile[0], "dump rich.gguf values")
        if doc is not None:
            vals = {kv.get("key"): kv.get("value") for kv in doc.get("kvs", [])}
            for k, want in (("llama.f32_nan", "nan"), ("llama.f32_inf", "inf"),
                            ("llama.f32_neg_inf", "-inf"), ("llama.f64_nan", "nan"),
                            ("llama.u64", 2**64 - 1), ("llama.i64", -2**63),
                            ("llama.i8", -128), ("llama.bool", True)):
                if vals.get(k) != want:
                    fail("dump rich.gguf values", f"{k} = {vals.get(k)!r}, expected {want!r}")
            if not any(kv.get("key") == 'Odd."Key"\\Name' for kv in doc.get("kvs", [])):
                fail("dump rich.gguf values", "the key with quote and backslash did not round-trip")

        # every prefix of rich.gguf (dense at the start, sparser later)
        lengths = sorted(set(list(range(0, min(len(rich), 160))) +
                             list(range(160, len(rich), 7)) + [len(rich) - 1]))
        prefixes = []
        for n in lengths:
            prefixes.append(put(f"prefix{n:05d}.gguf", rich[:n]))
        for p in prefixes:
            dump(cli, p, f"dump {os.path.basename(p)}")
        lint(cli, prefixes, "lint all prefixes at once")
        for p in prefixes[::5]:
            lint(cli, [p], f"lint {os.path.basename(p)}")

        # prefixes of a real file, when there is one
        if real:
            src = max(real, key=os.path.getsize)
            with open(src, "rb") as f:
                data = f.read()
            sizes = [0, 4, 8, 23, 24, 31, 100, 1000, 4096, 65536, len(data) // 2, len(data) - 1]
            rp = [put(f"realprefix{n}.gguf", data[:n]) for n in sizes if n <= len(data)]
            for p in rp:
                check_file(cli, p, os.path.basename(p) + f" (of {os.path.basename(src)})")

        # standard input and an unreadable path in the same report
        with open(hostile[1], "rb") as f:
            out = run(cli, ["--format", "json", "-"], "lint stdin", {0, 1}, stdin=f)
        if out is not None:
            doc = parse_strict(out, "lint stdin")
            if doc is not None:
                check_lint_doc(doc, "lint stdin", 1)
        lint(cli, [hostile[0], os.path.join(tmp, "missing.gguf"), tmp],
             "lint with unreadable paths", ok_codes=(2,))

    print(f"check_json: {checked['lint']} lint and {checked['dump']} dump documents checked, "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
