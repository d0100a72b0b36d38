#!/usr/bin/env python3
"""check_diff_schema.py CLI SCHEMA CORPUS - `gguflint diff --format json`
follows docs/schemas/gguflint-diff.schema.json (python3-jsonschema, draft
2020-12): over pairs of generated files whose differences are known (a
changed key, a long array, a reshaped tensor, a template line, tensor data
with --data, two split sets, identical files) with their exact fields and
exit statuses, and over consecutive pairs of the corpus's hostile files.
Exits 77 (skipped) without jsonschema."""
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_write import ARR, STR, U32, gguf  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("jsonschema not available: skipped")
    sys.exit(77)

TEMPLATE = "{% for m in messages %}\n{{ m.role }}\n{{ m.content }}\n{% endfor %}\n"


def model(name="m", template=TEMPLATE, tokens=("a", "b"), ne=(4,), vals=(1.0, 2.0, 3.0, 4.0),
          extra=()):
    kvs = [("general.architecture", STR, "llama"), ("general.name", STR, name),
           ("tokenizer.chat_template", STR, template),
           ("tokenizer.ggml.tokens", ARR, (STR, list(tokens)))] + list(extra)
    return gguf(kvs, [("blk.0.w", list(ne), list(vals))])


class Checker:
    def __init__(self, cli, schema_path, tmp):
        schema = json.load(open(schema_path, encoding="utf-8"))
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        self.v = cls(schema)
        self.cli, self.tmp, self.failures, self.docs = cli, tmp, 0, 0

    def write(self, name, data):
        p = os.path.join(self.tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def diff(self, a, b, *opts, code=None):
        p = subprocess.run([self.cli, "diff", "--format", "json", *opts, a, b],
                           capture_output=True)
        if p.returncode == 2:
            return None, 2
        doc = json.loads(p.stdout.decode("utf-8"))
        self.docs += 1
        for e in list(self.v.iter_errors(doc))[:5]:
            print(f"{a} {b}: schema: {e.message} at {list(e.path)}")
            self.failures += 1
        self.expect(code is None or p.returncode == code, f"exit {p.returncode} != {code}")
        self.expect(doc["same"] == (p.returncode == 0), "same matches the exit status")
        return doc, p.returncode

    def expect(self, cond, what):
        if not cond:
            print("FAIL:", what)
            self.failures += 1


def known_pairs(c):
    base = c.write("base.gguf", model())
    doc, _ = c.diff(base, c.write("same.gguf", model()), "--data", code=0)
    c.expect(doc["same"] and doc["data_compared"] and doc["keys"] == [] and doc["tensors"] == [],
             "identical files")

    doc, _ = c.diff(base, c.write("name.gguf", model(name="m2")), code=1)
    c.expect(doc["keys"] == [{"key": "general.name", "change": "changed",
                              "a": {"type": "str", "value": "m"},
                              "b": {"type": "str", "value": "m2"}}], "changed key")
    c.expect(doc["summary"]["keys_changed"] == 1 and doc["tensors"] == [], "only the key")

    doc, _ = c.diff(base, c.write("tok.gguf", model(tokens=("a", "c"),
                                                   extra=[("x.new", U32, 7)])), code=1)
    tok = [k for k in doc["keys"] if k["key"] == "tokenizer.ggml.tokens"][0]
    stored = b"".join([(8).to_bytes(4, "little"), (2).to_bytes(8, "little")] +
                      [len(t).to_bytes(8, "little") + t for t in (b"a", b"c")])
    c.expect(tok["b"] == {"type": "arr", "elem_type": "str", "count": 2, "bytes": len(stored),
                          "sha256": hashlib.sha256(stored).hexdigest()}, "array by digest")
    c.expect({"key": "x.new", "change": "added", "b": {"type": "u32", "value": 7}} in doc["keys"],
             "added key")

    doc, _ = c.diff(base, c.write("shape.gguf", model(ne=(2, 2))), code=1)
    c.expect(doc["tensors"] == [{"name": "blk.0.w", "change": "changed", "what": ["shape"],
                                 "a": {"type": "f32", "n_dims": 1, "shape": [4]},
                                 "b": {"type": "f32", "n_dims": 2, "shape": [2, 2]}}],
             "reshaped tensor")
    c.expect(doc["header"] == [], "no header change")

    t2 = TEMPLATE.replace("{{ m.role }}", "{{ m.role | upper }}")
    doc, _ = c.diff(base, c.write("tpl.gguf", model(template=t2)), code=1)
    c.expect(doc["templates"] == [{"key": "tokenizer.chat_template", "removed": 1, "added": 1,
                                   "truncated": False,
                                   "lines": [{"op": "-", "line": 2, "text": "{{ m.role }}"},
                                             {"op": "+", "line": 2,
                                              "text": "{{ m.role | upper }}"}]}],
             "template line")

    data = c.write("data.gguf", model(vals=(1.0, 2.0, 3.0, 5.0)))
    doc, _ = c.diff(base, data, code=0)
    c.expect(not doc["data_compared"], "data not read without --data")
    doc, _ = c.diff(base, data, "--data", code=1)
    t = doc["tensors"][0] if doc["tensors"] else {}
    c.expect(t.get("what") == ["data"] and len(t["a"]["sha256"]) == 64 and
             t["a"]["sha256"] != t["b"]["sha256"], "tensor data")

    # split sets: shards 1 and 2 of each, compared as sets
    for side, name in (("a", "m"), ("b", "m")):
        for k in (1, 2):
            extra = [("split.no", U32, k - 1), ("split.count", U32, 2)]
            kv = [("general.architecture", STR, "llama"), ("general.name", STR, name)] + extra
            ne = (4,) if (side, k) != ("b", 2) else (2, 2)
            c.write(f"{side}-0000{k}-of-00002.gguf",
                    gguf(kv, [(f"t{k}", list(ne), [1.0, 2.0, 3.0, 4.0])]))
    doc, _ = c.diff(os.path.join(c.tmp, "a-00001-of-00002.gguf"),
                    os.path.join(c.tmp, "b-00002-of-00002.gguf"), code=1)
    c.expect(len(doc["a"]["paths"]) == 2 and len(doc["b"]["paths"]) == 2, "every shard")
    c.expect([(x["name"], x["what"]) for x in doc["tensors"]] == [("t2", ["shape"])],
             "the tensor of the second shard")


def main():
    cli, schema_path, corpus = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        c = Checker(cli, schema_path, tmp)
        known_pairs(c)
        files = sorted(glob.glob(os.path.join(corpus, "examples", "*.gguf")) +
                       glob.glob(os.path.join(corpus, "regressions", "*.gguf")))
        unreadable = 0
        for a, b in zip(files, files[1:]):
            doc, rc = c.diff(a, b)
            unreadable += rc == 2
        print(f"{c.docs} diff documents valid ({unreadable} corpus pairs not readable as GGUF); "
              f"{c.failures} failures")
        return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
