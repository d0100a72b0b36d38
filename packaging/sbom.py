#!/usr/bin/env python3
"""sbom.py - the CycloneDX 1.6 SBOM (JSON) of a gguflint release.

    sbom.py --version V --cmake-cache BUILD/CMakeCache.txt --out FILE
            [--elf PATH]... [--artefact PATH]... [--validate SCHEMA_DIR]

Components are what the release's binaries link or load, found on the build
machine, never typed in by hand:
  - shared libraries each ELF file (--elf) needs (its DT_NEEDED entries,
    resolved with ldconfig -p), linkage "dynamic";
  - static archives linked into the CLI (INIH_LIBRARY and
    GGUFLINT_JANSSON_ARCHIVE from the CMake cache), linkage "static";
  - libraries an ELF file loads with dlopen (the lib*.so.N names among its
    strings, which is where its dlopen calls name them), linkage "dlopen",
    scope "optional": loaded only when a URL is linted or `hash` runs;
  - the cffi backend a cffi extension (a --elf file named _native*.so) imports.
Each is named by the Debian package that holds the file (dpkg -S), with that
package's version (dpkg-query) and a purl. The release files (--artefact)
are listed as file components with their SHA-256.

--validate checks the document against bom-1.6.SNAPSHOT.schema.json in
SCHEMA_DIR (with python3-jsonschema; the folder's two referenced schemas are
resolved from it) and exits 1 when it does not conform.
"""

import argparse
import warnings
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import uuid

SONAME = re.compile(rb"lib[A-Za-z0-9_+-]+\.so\.[0-9]+(?:\.[0-9]+)*")


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def ldconfig_paths():
    """soname -> path of the x86-64 library the dynamic loader would use."""
    paths = {}
    for line in run("ldconfig", "-p").splitlines():
        m = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        if m and "x86-64" in m.group(2) and m.group(1) not in paths:
            paths[m.group(1)] = m.group(3)
    return paths


def needed(elf):
    out = run("readelf", "-d", "-W", elf)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def dlopened(elf, linked):
    with open(elf, "rb") as f:
        data = f.read()
    names = sorted({m.decode() for m in SONAME.findall(data)})
    return [n for n in names if n not in linked]


def deb_package(path):
    """(package, version, arch) of the Debian package that holds path."""
    real = os.path.realpath(path)
    for candidate in (path, real, re.sub(r"^/usr(/lib)", r"\1", real)):
        try:
            pkg = run("dpkg", "-S", candidate).split(":")[0].strip()
            break
        except subprocess.CalledProcessError:
            continue
    else:
        return None
    version, arch = run("dpkg-query", "-W", "-f=${Version} ${Architecture}", pkg).split()
    return pkg, version, arch


def distro():
    info = {}
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                info[k] = v.strip('"')
    except OSError:
        pass
    return info.get("ID", "debian"), info.get("VERSION_ID", "")


def cache_value(cache, name):
    with open(cache, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"%s:[A-Z]+=(.*)$" % re.escape(name), line.rstrip("\n"))
            if m:
                return m.group(1)
    return ""


def cffi_backend():
    try:
        out = run(sys.executable, "-c", "import _cffi_backend; print(_cffi_backend.__file__)")
    except subprocess.CalledProcessError:
        return None
    return out.strip() or None


class Components:
    def __init__(self):
        self.by_pkg = {}
        self.dist_id, self.dist_ver = distro()

    def add(self, path, linkage, used_by, what):
        found = deb_package(path)
        if not found:
            print(f"sbom: {path} ({what}) is in no Debian package: left out", file=sys.stderr)
            return
        pkg, version, arch = found
        c = self.by_pkg.get(pkg)
        if c is None:
            purl = f"pkg:deb/{self.dist_id}/{pkg}@{version}?arch={arch}"
            if self.dist_ver:
                purl += f"&distro={self.dist_id}-{self.dist_ver}"
            c = {"bom-ref": purl, "type": "library", "name": pkg, "version": version,
                 "purl": purl, "_props": set(), "_linkages": set()}
            self.by_pkg[pkg] = c
        c["_props"].add(("gguflint:linkage", f"{os.path.basename(used_by)}: {linkage} {what}"))
        c["_linkages"].add(linkage)

    def done(self):
        out = []
        for pkg in sorted(self.by_pkg):
            c = dict(self.by_pkg[pkg])
            # loaded only when used (a URL, `hash`): optional; linked: required
            c["scope"] = "optional" if c.pop("_linkages") == {"dlopen"} else "required"
            c["properties"] = [{"name": n, "value": v} for n, v in sorted(c.pop("_props"))]
            out.append(c)
        return out


def build(args):
    comps = Components()
    lib_paths = ldconfig_paths()
    for elf in args.elf:
        linked = needed(elf)
        for so in linked:
            if so in lib_paths:
                comps.add(lib_paths[so], "dynamic", elf, so)
            elif not so.startswith("ld-linux"):
                print(f"sbom: {elf} needs {so}, not found by ldconfig", file=sys.stderr)
        for so in dlopened(elf, linked):
            if so in lib_paths:
                comps.add(lib_paths[so], "dlopen", elf, so)
        if os.path.basename(elf).startswith("_native"):
            backend = cffi_backend()
            if backend:
                comps.add(backend, "python-import", elf, "_cffi_backend")
    for var in args.static_vars:
        archive = cache_value(args.cmake_cache, var)
        if archive.endswith(".a"):
            comps.add(archive, "static", args.static_user, os.path.basename(archive))
    components = comps.done()
    for path in args.artefact:
        components.append({
            "bom-ref": "file:" + os.path.basename(path), "type": "file",
            "name": os.path.basename(path),
            "hashes": [{"alg": "SHA-256", "content": sha256(path)}]})
    main_ref = f"pkg:generic/gguflint@{args.version}"
    # the same release (version, commit, files) gets the same serial number
    serial = uuid.uuid5(uuid.NAMESPACE_URL, "gguflint-release:" + json.dumps(
        [args.version, args.commit, components], sort_keys=True))
    now = os.environ.get("SOURCE_DATE_EPOCH")
    stamp = (datetime.datetime.fromtimestamp(int(now), datetime.timezone.utc) if now
             else datetime.datetime.now(datetime.timezone.utc))
    return {
        "bomFormat": "CycloneDX",
        "specVersion": "1.6",
        "serialNumber": f"urn:uuid:{serial}",
        "version": 1,
        "metadata": {
            "timestamp": stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "tools": {"components": [{"type": "application", "name": "gguflint packaging/sbom.py",
                                      "version": args.version}]},
            "component": {
                "bom-ref": main_ref, "type": "application", "name": "gguflint",
                "version": args.version, "purl": main_ref,
                "description": "fuzz-hardened validating parser and linter for GGUF model files",
                "licenses": [{"license": {"id": "MIT"}}],
                "properties": [{"name": "gguflint:commit", "value": args.commit}]
                if args.commit else [],
            },
        },
        "components": components,
        "dependencies": [{"ref": main_ref,
                          "dependsOn": [c["bom-ref"] for c in components
                                        if c["type"] == "library"]}],
    }


def schema_validator(schema_dir):
    """A validator of CycloneDX 1.6 documents: bom-1.6.SNAPSHOT.schema.json in
    schema_dir, its references (spdx, jsf) resolved from that folder, never
    the network; None without python3-jsonschema. check_cyclonedx.py (the
    tests of `--format cyclonedx`) uses it too."""
    try:
        import jsonschema
    except ImportError:
        return None
    store = {}
    for name in os.listdir(schema_dir):
        if name.endswith(".schema.json"):
            with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
                s = json.load(f)
            store["http://cyclonedx.org/schema/" + name] = s
            store[s.get("$id", name)] = s
    schema = store["http://cyclonedx.org/schema/bom-1.6.SNAPSHOT.schema.json"]
    with warnings.catch_warnings():  # deprecated in newer jsonschema, the one API in 4.10
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return jsonschema.Draft7Validator(schema, resolver=resolver,
                                      format_checker=jsonschema.FormatChecker())


def validate(doc, schema_dir):
    validator = schema_validator(schema_dir)
    if validator is None:
        print("sbom: python3-jsonschema missing: not validated", file=sys.stderr)
        return True
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        print(f"sbom: schema: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
    return not errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", required=True)
    ap.add_argument("--commit", default="")
    ap.add_argument("--cmake-cache", required=True)
    ap.add_argument("--static-var", dest="static_vars", action="append",
                    default=[], help="CMake cache entries naming archives linked in")
    ap.add_argument("--static-user", default="gguflint",
                    help="the binary the archives are linked into")
    ap.add_argument("--elf", action="append", default=[])
    ap.add_argument("--artefact", action="append", default=[])
    ap.add_argument("--validate", metavar="SCHEMA_DIR")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not args.static_vars:
        args.static_vars = ["INIH_LIBRARY", "GGUFLINT_JANSSON_ARCHIVE"]
    doc = build(args)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    if args.validate and not validate(doc, args.validate):
        return 1
    if args.validate:
        print(f"sbom: {args.out} conforms to CycloneDX 1.6 ({len(doc['components'])} components)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
