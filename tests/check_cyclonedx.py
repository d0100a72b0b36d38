#!/usr/bin/env python3
"""check_cyclonedx.py CLI SCHEMA_DIR CORPUS_DIR - `gguflint --format
cyclonedx` against the official CycloneDX 1.6 JSON schema (SCHEMA_DIR:
bom-1.6.SNAPSHOT.schema.json with the spdx and jsf schemas it refers to,
resolved from that folder, never from the network), over the corpus's
files and a missing path, and the exact fields of a file whose general.*
keys are known: name, version, supplier, author, licence, tags, datasets,
base model, architecture, file type, parameter count, SHA-256 and size,
and the findings as vulnerabilities (the same rules as the JSON report,
each affecting the file's component). Two runs give the same bytes, with
no timestamp; --bom-timestamp SECONDS|now|none and SOURCE_DATE_EPOCH give
metadata.timestamp (the option first), each BOM valid against the schema,
and bad values exit 2.
Exits 77 (skipped) when the schema or python3-jsonschema is absent."""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_write import ARR, F32, STR, U32, gguf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "packaging"))
from sbom import schema_validator  # noqa: E402 - the release SBOM's validator, one home


def validator(schema_dir):
    if not os.path.exists(os.path.join(schema_dir, "bom-1.6.SNAPSHOT.schema.json")):
        print("no CycloneDX schema in", schema_dir, ": skipped")
        sys.exit(77)
    v = schema_validator(schema_dir)
    if v is None:
        print("jsonschema not available: skipped")
        sys.exit(77)
    return v


def bom(cli, *args, epoch=None):
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    if epoch is not None:
        env["SOURCE_DATE_EPOCH"] = epoch
    p = subprocess.run([cli, "--isolated", "--format", "cyclonedx", *args], capture_output=True,
                       env=env)
    return p.stdout, p.returncode


def errors_of(v, raw, label):
    try:
        doc = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        print(label, ": not JSON:", e)
        return 1, None
    errs = list(v.iter_errors(doc))
    for e in errs[:5]:
        print(label, ":", "/".join(str(x) for x in e.absolute_path), ":", e.message[:300])
    return len(errs), doc


MODEL = [
    ("general.architecture", STR, "llama"),
    ("general.name", STR, "Tiny Model"),
    ("general.version", STR, "1.2"),
    ("general.organization", STR, "Acme Labs"),
    ("general.author", STR, "Ann Author"),
    ("general.description", STR, "a \"tiny\" test model\n"),
    ("general.license", STR, "apache-2.0"),
    ("general.file_type", U32, 1),
    ("general.size_label", STR, "4"),
    ("general.tags", ARR, (STR, ["text-generation", "test"])),
    ("general.dataset.count", U32, 1),
    ("general.dataset.0.name", STR, "wiki-small"),
    ("general.base_model.count", U32, 1),
    ("general.base_model.0.name", STR, "Base Model"),
    ("general.base_model.0.organization", STR, "Base Org"),
    ("general.base_model.0.version", STR, "v1"),
]


def expect(cond, what):
    if not cond:
        print("FAIL:", what)
    return 0 if cond else 1


def check_fields(cli, v, tmp):
    path = os.path.join(tmp, "tiny.gguf")
    data = gguf(MODEL, [("token_embd.weight", [4], [1.0, 2.0, 3.0, 4.0])])
    with open(path, "wb") as f:
        f.write(data)
    raw, rc = bom(cli, "--exit-zero", path)
    n, doc = errors_of(v, raw, "model card file")
    if doc is None:
        return n + 1
    again, _ = bom(cli, "--exit-zero", path)
    n += expect(raw == again, "two runs give the same bytes")
    n += expect("serialNumber" not in doc and "timestamp" not in doc.get("metadata", {}),
                "no serialNumber or timestamp by default")
    n += expect(doc["bomFormat"] == "CycloneDX" and doc["specVersion"] == "1.6", "1.6 BOM")
    c = doc["components"][0]
    props = {p["name"]: p.get("value") for p in c["properties"]}
    card = c["modelCard"]
    cprops = {p["name"]: p.get("value") for p in card["properties"]}
    checks = [
        (c["type"] == "machine-learning-model", "component type"),
        (c["name"] == "Tiny Model", "name from general.name"),
        (c["version"] == "1.2", "version"),
        (c["supplier"] == {"name": "Acme Labs"}, "supplier from general.organization"),
        (c["authors"] == [{"name": "Ann Author"}], "authors"),
        (c["description"] == "a \"tiny\" test model\n", "description, exact"),
        (c["licenses"] == [{"license": {"name": "apache-2.0"}}], "licence"),
        (c["tags"] == ["text-generation", "test"], "tags"),
        (c["hashes"] == [{"alg": "SHA-256", "content": hashlib.sha256(data).hexdigest()}],
         "SHA-256 of the whole file"),
        (props.get("gguf:size") == str(len(data)), "size"),
        (props.get("gguf:version") == "3", "GGUF version"),
        (props.get("gguf:general.size_label") == "4", "other general.* keys as properties"),
        (props.get("gguflint:path") == path, "path"),
        (card["modelParameters"].get("modelArchitecture") == "llama", "architecture"),
        (card["modelParameters"].get("datasets") == [{"type": "dataset", "name": "wiki-small"}],
         "datasets"),
        (cprops.get("gguf:file_type", "").startswith("1 ("), "file type with its name"),
        (cprops.get("gguf:parameters") == "4", "parameter count"),
        (cprops.get("gguf:tensor_types") == "f32=1", "tensor types"),
        (c["pedigree"]["ancestors"] == [{"type": "machine-learning-model", "name": "Base Model",
                                         "version": "v1", "supplier": {"name": "Base Org"}}],
         "base model as ancestor"),
    ]
    for ok, what in checks:
        n += expect(ok, what)
    # the findings: the JSON report's, in order, each a vulnerability of the file
    p = subprocess.run([cli, "--isolated", "--format", "json", "--exit-zero", path],
                       capture_output=True)
    rules = [f["rule"] for f in json.loads(p.stdout)["files"][0]["findings"]]
    vulns = doc.get("vulnerabilities", [])
    n += expect(rules and [x["id"] for x in vulns] == rules, "vulnerabilities = findings")
    n += expect(all(x["affects"] == [{"ref": c["bom-ref"]}] for x in vulns), "affects the file")
    n += expect(all(x["ratings"][0]["severity"] in ("high", "medium", "info") for x in vulns),
                "ratings")
    return n


def iso(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_timestamps(cli, v, path):
    n = 0

    def stamp(*args, epoch=None):
        raw, rc = bom(cli, "--exit-zero", *args, path, epoch=epoch)
        errs, doc = errors_of(v, raw, "timestamp %r %r" % (args, epoch))
        if doc is None or rc != 0:
            return errs + 1, None
        return errs, doc["metadata"].get("timestamp")

    for t in (0, 951782400, 1700000000, 4107542400, 253402300799):
        e, got = stamp("--bom-timestamp", str(t))
        n += e + expect(got == iso(t), "--bom-timestamp %d: %r, wanted %s" % (t, got, iso(t)))
        e, got = stamp(epoch=str(t))
        n += e + expect(got == iso(t), "SOURCE_DATE_EPOCH=%d: %r" % (t, got))
    e, got = stamp("--bom-timestamp", "1700000000", epoch="0")
    n += e + expect(got == iso(1700000000), "the option before SOURCE_DATE_EPOCH")
    e, got = stamp("--bom-timestamp", "none", epoch="0")
    n += e + expect(got is None, "--bom-timestamp none: no timestamp")
    e, got = stamp(epoch="")
    n += e + expect(got is None, "an empty SOURCE_DATE_EPOCH: no timestamp")
    before = int(time.time())
    e, got = stamp("--bom-timestamp", "now")
    after = int(time.time())
    n += e + expect(got in {iso(t) for t in range(before, after + 1)}, "now: %r" % got)
    for bad in ("253402300800", "-1", "0x10", "1.5", "yesterday"):
        _, rc = bom(cli, "--bom-timestamp", bad, path)
        n += expect(rc == 2, "--bom-timestamp %s exits 2 (%d)" % (bad, rc))
    for bad in ("x", "now", "-5", "253402300800"):
        _, rc = bom(cli, path, epoch=bad)
        n += expect(rc == 2, "SOURCE_DATE_EPOCH=%s exits 2 (%d)" % (bad, rc))
    return n


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    cli, schema_dir, corpus = sys.argv[1:]
    v = validator(schema_dir)
    failures = 0
    files = []
    for sub in ("examples", "regressions", "seed"):
        d = os.path.join(corpus, sub)
        if os.path.isdir(d):
            files += sorted(os.path.join(d, x) for x in os.listdir(d) if x.endswith(".gguf"))
    with tempfile.TemporaryDirectory() as tmp:
        raw, rc = bom(cli, "--exit-zero", *files, os.path.join(tmp, "missing.gguf"))
        n, doc = errors_of(v, raw, "corpus")
        failures += n
        if doc is not None:
            failures += expect(len(doc["components"]) == len(files) + 1, "one component per file")
            last = {p["name"]: p["value"] for p in doc["components"][-1]["properties"]}
            failures += expect("gguflint:error" in last, "an unreadable file says why")
        failures += check_fields(cli, v, tmp)
        failures += check_timestamps(cli, v, os.path.join(tmp, "tiny.gguf"))
    print(f"{len(files)} corpus files in one BOM; {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
