"""gguflint: a validating parser and linter for GGUF model files.

Python bindings over libgguflint (the C library of the gguflint CLI), so a
lint from Python gives exactly what the CLI gives::

    import gguflint
    report = gguflint.lint("model.gguf", profile="security")
    for f in report.findings:
        print(f.rule, f.slug, f.severity, hex(f.offset), f.path, f.message)
    print(report.ok, report.to_json())

A source is a path (str or os.PathLike), a bytes-like object, or a binary
file object. A malformed or hostile file never raises: its problems are
findings. Exceptions (gguflint.Error and its subclasses) are for inputs that
cannot be read, bad arguments and exhausted memory. The library releases the
GIL for the whole lint, so threads scale; contexts are never shared.
"""

from __future__ import annotations

import hashlib
import io
import json
import mmap
import os
import threading
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Dict, Iterable, List, Optional, Tuple, Union

from ._errors import (BY_STATUS, ArgumentError, Error, InternalError, IOError, NoMemoryError,
                      NotRegularFileError, StateError, UnsupportedSourceError)
from ._native import ffi, lib
from ._diff import diff

__all__ = [
    "lint", "dump", "rules", "Report", "Finding", "Rule", "Source", "PROFILES",
    "Error", "IOError", "NotRegularFileError", "NoMemoryError", "StateError", "ArgumentError",
    "InternalError", "UnsupportedSourceError", "__version__", "HAVE_URL", "list_repository",
    "rules_markdown", "STREAM_MAX", "Base", "Cancel", "diff",
]

__version__: str = ffi.string(lib.gguflintpy_version()).decode("ascii")

#: What lint() and dump() accept.
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO]

#: Profile names, in the library's order ("ggml" is the default).
def _profiles() -> Tuple[str, ...]:
    names: List[str] = []
    while lib.gguflint_profile_name(len(names)) != ffi.NULL:
        names.append(ffi.string(lib.gguflint_profile_name(len(names))).decode("ascii"))
    return tuple(names)


PROFILES: Tuple[str, ...] = _profiles()

_URL_PREFIXES = ("http://", "https://", "hf://")

#: True when this build's library reads http(s):// and hf:// URLs.
HAVE_URL: bool = bool(lib.gguflintpy_url_supported())
_SEVERITIES = ("off", "note", "warning", "error")


@dataclass(frozen=True)
class Finding:
    """One problem found in a file.

    rule: the stable id ("GG106"); slug: its kebab-case name; family:
    "container", "kv", "tensor", "data", "model", ...; severity: "error",
    "warning" or "note" (after the profile and selection); offset and length:
    the offending bytes (length 0 for a position); path: the logical path
    (kv["general.alignment"], tensor[17].ne[1]); message: one line. Every
    byte from the file in path and message is escaped (control characters,
    bidi controls and invalid UTF-8 appear as \\xNN or \\u{NNNN}), so both
    are safe to print.

    For security reports, as in the CLI's JSON: level, the severity as a
    number (1 note, 2 warning, 3 error); security_severity, the rule's
    CVSS-like score (None when it has none); cwe, "CWE-NNN" or None; fix,
    how to fix the writer; fingerprint, 16 hex digits that stay the same
    from run to run (the rule, the normalised path, the logical path and
    the finding's subject, never a byte offset), as in SARIF and baselines."""

    rule: str
    slug: str
    family: str
    severity: str
    offset: int
    length: int
    path: str
    message: str
    level: int = 0
    security_severity: Optional[float] = None
    cwe: Optional[str] = None
    fix: str = ""
    fingerprint: str = ""


@dataclass(frozen=True)
class Rule:
    """A rule of the table: id, slug, family, default severity, its severity
    in each profile, its documentation (summary, what, why, example, fix),
    its CWE ("CWE-NNN" or None) and its security-severity (a CVSS-like
    score, or None)."""

    id: str
    slug: str
    family: str
    default_severity: str
    summary: str
    what: str
    why: str
    example: str
    fix: str
    profiles: Dict[str, str] = field(default_factory=dict)
    cwe: Optional[str] = None
    security_severity: Optional[float] = None


class Report:
    """The result of one lint.

    path: the name shown for the input; findings: list of Finding in offset
    order; header: dict of the parsed header (file_size, is_gguf, version,
    big_endian, tensor_count, kv_count, alignment, metadata_complete,
    metadata_end, data_start, ...: every field of the library's
    gguflint_header); dropped: findings past the per-rule limit, counted but
    not kept; counts: {"error": n, "warning": n, "note": n}; ok: True when
    no finding is an error (the CLI's default --fail-on); fetch: for a URL,
    {"bytes_fetched": n, "requests": n} (body bytes received and HTTP
    requests made), else None."""

    __slots__ = ("path", "findings", "header", "dropped", "counts", "fetch", "_json")

    def __init__(self, path: str, findings: List[Finding], header: Dict[str, Any],
                 dropped: int, counts: Dict[str, int], document: str,
                 fetch: Optional[Dict[str, int]] = None):
        self.path = path
        self.fetch = fetch
        self.findings = findings
        self.header = header
        self.dropped = dropped
        self.counts = counts
        self._json = document

    @property
    def ok(self) -> bool:
        """True when no finding has severity "error"."""
        return self.counts.get("error", 0) == 0

    @property
    def max_severity(self) -> Optional[str]:
        """The highest severity among the findings, or None when there are none."""
        for sev in ("error", "warning", "note"):
            if self.counts.get(sev, 0):
                return sev
        return None

    def to_json(self) -> str:
        """The JSON document the CLI prints for this input with
        `gguflint --format json` (schema version 1), byte for byte: it is
        written by the library's own JSON report writer."""
        return self._json

    def to_dict(self) -> Dict[str, Any]:
        """This input's entry of the JSON document ("files"[0]) as a dict."""
        return json.loads(self._json)["files"][0]

    def __repr__(self) -> str:
        return (f"<gguflint.Report {self.path!r} ok={self.ok} findings={len(self.findings)} "
                f"error={self.counts.get('error', 0)} warning={self.counts.get('warning', 0)} "
                f"note={self.counts.get('note', 0)}>")


# ------------------------------------------------------------------ helpers

def _take(out: Any, length: Any, st: int) -> str:
    """Copy a C buffer the glue allocated into a str and free it."""
    p = out[0]
    try:
        if st != 0:
            _raise(st, None)
        return ffi.unpack(p, length[0]).decode("utf-8") if p != ffi.NULL else ""
    finally:
        if p != ffi.NULL:
            lib.gguflintpy_free(p)


def _raise(st: int, ctx: Any, source: Optional[str] = None,
           report_json: Optional[str] = None) -> None:
    if st == -1:
        raise IOError("the file changed (shrank) while being read", status=1,
                      detail="the file shrank while it was read", source=source,
                      report_json=report_json)
    detail = ""
    if ctx is not None and ctx != ffi.NULL:
        d = lib.gguflint_error_detail(ctx)
        if d != ffi.NULL:
            detail = ffi.string(d).decode("utf-8", "backslashreplace")
    what = ffi.string(lib.gguflint_strerror(st)).decode("utf-8", "backslashreplace")
    msg = f"{source}: {what}" if source else what
    if detail:
        msg += f": {detail}"
    raise BY_STATUS.get(st, Error)(msg, status=st, detail=detail, source=source,
                                   report_json=report_json)


def _rule_list(value: Union[None, str, Iterable[str]], what: str) -> Any:
    """select/ignore as a C string (comma-separated), or NULL."""
    if value is None:
        return ffi.NULL
    if isinstance(value, str):
        items = [value]
    else:
        try:
            items = list(value)
        except TypeError:
            raise TypeError(f"{what} must be a str or an iterable of str, "
                            f"not {type(value).__name__}") from None
        if not all(isinstance(v, str) for v in items):
            raise TypeError(f"{what} must be a str or an iterable of str")
    joined = ",".join(items)
    if "\0" in joined:
        raise ArgumentError(f"{what} contains a NUL character", status=5)
    return ffi.new("char[]", joined.encode("utf-8"))


def _new_ctx(profile: str, select: Any, ignore: Any, deep: bool, header_only: bool) -> Any:
    if not isinstance(profile, str):
        raise TypeError(f"profile must be a str, not {type(profile).__name__}")
    if "\0" in profile:
        raise ArgumentError("profile contains a NUL character", status=5)
    c_select = _rule_list(select, "select")
    c_ignore = _rule_list(ignore, "ignore")
    status = ffi.new("int *")
    bad = ffi.new("char[]", 256)
    ctx = lib.gguflintpy_new(profile.encode("utf-8"), c_select, c_ignore, bool(deep),
                             bool(header_only), status, bad, 256)
    if ctx == ffi.NULL:
        if status[0] == 5:
            name = ffi.string(bad).decode("utf-8", "backslashreplace")
            kind = "profile" if name == profile else "rule, prefix or family"
            raise ArgumentError(f"unknown {kind} {name!r}", status=5)
        _raise(status[0], None)
    return ffi.gc(ctx, lib.gguflint_free)


class _Input:
    """A source resolved for the library: a path to map, or a buffer to borrow
    (kept alive here for as long as the context may read it)."""

    __slots__ = ("path", "url", "buffer", "size", "name", "display", "keep")

    def __init__(self) -> None:
        self.path: Optional[bytes] = None
        self.url: Optional[bytes] = None
        self.buffer: Any = ffi.NULL
        self.size = 0
        self.name: Optional[str] = None
        self.display = "<bytes>"
        self.keep: List[Any] = []

    def close(self) -> None:
        """Release the borrowed buffer, then unmap a mapped file object."""
        for k in reversed(self.keep):
            if isinstance(k, ffi.CData):
                ffi.release(k)
            elif isinstance(k, memoryview):
                k.release()
            elif isinstance(k, mmap.mmap):
                try:
                    k.close()
                except BufferError:  # still exported elsewhere: the GC closes it
                    pass
        self.keep.clear()
        self.buffer = ffi.NULL


def _borrow(inp: _Input, data: Any) -> None:
    """Borrow a buffer without copying when it cannot change under the
    parser (bytes, read-only views); copy writable ones, since another thread
    could rewrite them during the lint."""
    view: Union[bytes, memoryview]
    if isinstance(data, bytes):
        view = data
    else:
        mv = memoryview(data)
        if mv.readonly and mv.c_contiguous:
            view = mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv
        else:
            view = mv.tobytes()
    if view is not data:
        inp.keep.append(view)
    inp.size = len(view) if isinstance(view, bytes) else view.nbytes
    inp.buffer = ffi.from_buffer("char[]", view) if inp.size else ffi.new("char[]", 1)
    inp.keep.append(inp.buffer)


def _resolve(source: Any, name: Optional[str], max_stream: Optional[int] = None) -> _Input:
    inp = _Input()
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if "\0" in path:
            raise ArgumentError("the path contains a NUL character", status=5)
        if path.startswith(_URL_PREFIXES):
            if not HAVE_URL:
                raise UnsupportedSourceError(
                    f"{path}: URL inputs need a libgguflint built with URL support "
                    "(libcurl and libjansson; not available in this build)", source=path)
            inp.url = path.encode("utf-8")
        else:
            inp.path = os.fsencode(path)
        inp.display = path
    elif isinstance(source, (bytes, bytearray, memoryview)):
        _borrow(inp, source)
    elif hasattr(source, "read"):
        if getattr(source, "closed", False):
            raise ArgumentError("the file object is closed", status=5)
        if isinstance(source, io.TextIOBase):
            raise TypeError("the file object must be opened in binary mode ('rb')")
        fname = getattr(source, "name", None)
        if isinstance(fname, str):
            inp.display = fname
        mapped = _map_file_object(source)
        if mapped is not None:
            inp.keep.append(mapped)
            mv = memoryview(mapped)
            inp.keep.append(mv)
            _borrow(inp, mv)
        else:
            _borrow(inp, _read_stream(source, inp.display, max_stream))
    else:
        raise TypeError("source must be a path, a bytes-like object or a binary file object, "
                        f"not {type(source).__name__}")
    if name is not None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        if "\0" in name:
            raise ArgumentError("name contains a NUL character", status=5)
        inp.name = name
        inp.display = name
    elif inp.path is None and inp.display != "<bytes>":
        inp.name = inp.display
    return inp


#: The most a non-mappable file object (a pipe, a socket, a custom stream)
#: is read: the CLI's default --stdin-max (64 MiB). A stream that goes on is
#: an error rather than memory exhausted by an endless or hostile source;
#: lint(..., max_stream=N) sets another cap for one call.
STREAM_MAX = 64 << 20


class Cancel:
    """A flag that ends the URL transfers of the lint calls given it (from
    any thread): set() and the C transfer stops within about a second."""

    def __init__(self) -> None:
        self._flag = ffi.new("int *")

    def set(self) -> None:
        self._flag[0] = 1

    def is_set(self) -> bool:
        return bool(self._flag[0])


def _read_stream(f: Any, display: str, cap: Optional[int] = None) -> bytes:
    """Read a file object to its end in chunks, at most `cap` (default
    STREAM_MAX) bytes."""
    STREAM_MAX = globals()["STREAM_MAX"] if cap is None else cap
    chunks: List[bytes] = []
    total = 0
    while True:
        try:
            chunk = f.read(min(1 << 24, STREAM_MAX + 1 - total))
        except ValueError as e:  # e.g. "I/O operation on closed file"
            raise ArgumentError(str(e), status=5) from e
        if chunk is None:  # a non-blocking stream with nothing ready
            raise ArgumentError("the file object is non-blocking and has no data ready",
                                status=5)
        if not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise TypeError("the file object must be opened in binary mode "
                            f"(read() returned {type(chunk).__name__})")
        if not chunk:
            break
        chunks.append(bytes(chunk))
        total += len(chunks[-1])
        if total > STREAM_MAX:
            raise IOError(f"{display}: the stream is longer than {STREAM_MAX} bytes: pass a "
                          "path, a bytes object or a regular file instead", status=1,
                          detail="stream too long", source=display)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _map_file_object(f: Any) -> Optional[mmap.mmap]:
    """Map a regular file opened at its start (only the metadata pages are
    then read); None when it is not one (pipes, BytesIO, empty files)."""
    try:
        fd = f.fileno()
        if f.tell() != 0:
            return None
        st = os.fstat(fd)
    except (AttributeError, OSError, ValueError):
        return None
    import stat
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return None
    try:
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None


def _run(source: Any, profile: str, select: Any, ignore: Any, deep: bool,
         header_only: bool, name: Optional[str],
         base: Optional["Base"] = None,
         max_stream: Optional[int] = None, cancel: Optional["Cancel"] = None,
         deadline: Optional[float] = None) -> Tuple[Any, _Input, int]:
    ctx = _new_ctx(profile, select, ignore, deep, header_only)
    if base is not None:
        st = lib.gguflint_set_base(ctx, base._ctx)
        if st != 0:
            _raise(st, ctx, base.display)
    inp = _resolve(source, name, max_stream)
    if inp.name is not None:
        st = lib.gguflint_set_name(ctx, inp.name.encode("utf-8", "surrogateescape"))
        if st != 0:
            _raise(st, ctx, inp.display)
    # One C call, without the GIL: open, fetch or borrow, and run every check.
    if inp.url is not None:
        st = lib.gguflintpy_open_url_run(ctx, inp.url,
                                         cancel._flag if cancel is not None else ffi.NULL,
                                         int(deadline * 1000) if deadline else 0)
    else:
        st = lib.gguflintpy_open_run(ctx, inp.path if inp.path is not None else ffi.NULL,
                                     inp.buffer, inp.size)
    return ctx, inp, st


def _report_json(ctx: Any, display: str, st: int, sha256: Optional[str] = None) -> str:
    out = ffi.new("char **")
    length = ffi.new("size_t *")
    digest = sha256.encode("ascii") if sha256 else ffi.NULL
    rst = lib.gguflintpy_report_json(ctx, display.encode("utf-8", "surrogateescape"),
                                     1 if st == -1 else st, digest, out, length)
    return _take(out, length, rst)


def _file_sha256(source: Any) -> Optional[str]:
    """The SHA-256 of a local file that --deep read whole (as the CLI's JSON
    "sha256"); None for URLs, standard input, buffers and file objects."""
    if not isinstance(source, (str, os.PathLike)):
        return None
    path = os.fspath(source)
    if not isinstance(path, str) or path == "-" or path.startswith(_URL_PREFIXES):
        return None
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def _fetch_stats(ctx: Any) -> Optional[Dict[str, int]]:
    got = ffi.new("uint64_t[2]")
    if not lib.gguflintpy_fetch_stats(ctx, got, got + 1):
        return None
    return {"bytes_fetched": int(got[0]), "requests": int(got[1])}


def _header(ctx: Any) -> Dict[str, Any]:
    h = lib.gguflint_get_header(ctx)
    if h == ffi.NULL:
        return {}
    return {name: getattr(h, name) for name, _ in ffi.typeof("gguflint_header").fields}


# ------------------------------------------------------------------ the API

class Base:
    """A base model to check LoRA adapters against (lint(..., base=)), read
    once: its header, KVs and tensor infos, never its tensor data, with every
    rule off (lint it separately for its own findings). One Base may serve
    any number of lint() calls, from several threads at once; close() it (or
    use it as a context manager) to release it early.

    source: a path, URL, bytes-like object or binary file object, as for
    lint(). Raises IOError when it cannot be read, and ArgumentError when it
    is not a model llama.cpp could load an adapter onto (an adapter, a
    projector, a control vector, a file without tensors, one shard of a
    split model), with the reason."""

    def __init__(self, source: Source, *, name: Optional[str] = None) -> None:
        self._ctx: Any = None
        ctx, inp, st = _run(source, "ggml", None, "ALL", False, False, name)
        self.display = inp.display
        if st != 0:
            try:
                _raise(st, ctx, inp.display)
            finally:
                ffi.release(ctx)
                inp.close()
        why = lib.gguflint_base_problem(ctx)
        if why != ffi.NULL:
            reason = ffi.string(why).decode("utf-8", "backslashreplace")
            ffi.release(ctx)
            inp.close()
            raise ArgumentError(f"{self.display}: not usable as a base model: {reason}",
                                status=5)
        self._inp = inp
        self._users = 0
        self._lock = threading.Lock()
        self._ctx = ctx

    def _acquire(self) -> None:
        with self._lock:
            if self._ctx is None:
                raise ArgumentError("the base model is closed", status=5)
            self._users += 1

    def _release(self) -> None:
        with self._lock:
            self._users -= 1

    def close(self) -> None:
        """Release the base. While a lint() runs with it, close() raises
        ArgumentError (try again after)."""
        with self._lock:
            if self._ctx is None:
                return
            if self._users:
                raise ArgumentError("the base model is in use by a running lint()", status=5)
            ctx, self._ctx = self._ctx, None
        ffi.release(ctx)
        self._inp.close()

    def __enter__(self) -> "Base":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def lint(source: Source, *, profile: str = "ggml",
         select: Union[None, str, Iterable[str]] = None,
         ignore: Union[None, str, Iterable[str]] = None,
         deep: bool = False, header_only: bool = False,
         name: Optional[str] = None,
         base: Union[None, "Base", Source] = None,
         max_stream: Optional[int] = None, cancel: Optional["Cancel"] = None,
         deadline: Optional[float] = None) -> Report:
    """Lint one GGUF input and return its Report.

    source: a path, a bytes-like object (bytes and read-only buffers are
    borrowed, writable ones copied) or a binary file object (a regular file at
    its start is mapped, anything else read). profile: "ggml" (default),
    "spec", "strict" or "security". select: only these rules (ids, id
    prefixes such as "GG1", slugs, families or "ALL"; a comma-separated str or
    a list); ignore: skip these (applied after select). deep: also read the
    tensor data (NaN/Inf, all-zero tensors, padding). header_only: the input
    may be only the start of the file (a partial download). name: the file
    name the checks see (the quantisation tag, shard numbers) and the report
    shows; default: the path or the file object's name. base: the base model
    a LoRA adapter is checked against as llama.cpp loads it (architecture,
    target tensors, shapes: GG530, GG532, GG565, GG566): a Base, or any
    source (then read for this call only); an input that is not an adapter
    is linted as without it. max_stream: the most bytes read from a file
    object that cannot be mapped (default STREAM_MAX, 64 MiB, the CLI's
    --stdin-max); a longer stream is an IOError. cancel: a Cancel another
    thread may set to end a URL's transfer within about a second (an attempt
    given up on). deadline: seconds after which a URL's requests end however
    slowly their bytes come (default: the library's 300 s per request).

    Raises IOError / NotRegularFileError when the input cannot be read,
    ArgumentError for an unknown profile or rule, TypeError for a source of
    the wrong type, UnsupportedSourceError for a URL this build cannot fetch."""
    own: Optional[Base] = None
    used: Optional[Base] = None
    if isinstance(base, Base):
        used = base
    elif base is not None:
        used = own = Base(base)
    if used is not None:
        used._acquire()
    try:
        if max_stream is not None and (not isinstance(max_stream, int) or max_stream < 0):
            raise ArgumentError(f"max_stream must be a byte count, got {max_stream!r}",
                                status=5)
        ctx, inp, st = _run(source, profile, select, ignore, deep, header_only, name, used,
                            max_stream, cancel, deadline)
    except BaseException:
        if used is not None:
            used._release()
        if own is not None:
            own.close()
        raise
    try:
        if st != 0:
            _raise(st, ctx, inp.display, _report_json(ctx, inp.display, st))
        document = _report_json(ctx, inp.display, st, _file_sha256(source) if deep else None)
        header = _header(ctx)
        fetch = _fetch_stats(ctx) if inp.url is not None else None
    finally:
        ffi.release(ctx)
        inp.close()
        if used is not None:
            used._release()
        if own is not None:
            own.close()
    entry = json.loads(document)["files"][0]
    findings = [Finding(f["rule"], f["slug"], f["family"], f["severity"], f["offset"],
                        f["length"], f["path"], f["message"], f["level"],
                        f["security_severity"], f["cwe"], f["fix"], f["fingerprint"])
                for f in entry["findings"]]
    return Report(inp.display, findings, header, entry["dropped"], dict(entry["summary"]),
                  document, fetch)


def dump(source: Source, *, name: Optional[str] = None) -> Dict[str, Any]:
    """The header, every KV (arrays with their count and first elements) and
    the tensor table, as `gguflint dump --format json` prints them."""
    ctx, inp, st = _run(source, "ggml", None, None, False, False, name)
    try:
        if st != 0:
            _raise(st, ctx, inp.display)
        out = ffi.new("char **")
        length = ffi.new("size_t *")
        document = _take(out, length, lib.gguflintpy_dump_json(ctx, out, length))
    finally:
        ffi.release(ctx)
        inp.close()
    return json.loads(document)


def _s(p: Any) -> str:
    return ffi.string(p).decode("utf-8") if p != ffi.NULL else ""


def rules() -> List[Rule]:
    """Every rule of the table, in id order."""
    out = []
    for i in range(lib.gguflint_rule_count()):
        r = lib.gguflint_rule(i)
        profiles = {p: _SEVERITIES[lib.gguflint_rule_profile_severity(i, k)]
                    for k, p in enumerate(PROFILES)}
        score = _s(r.security_severity) if r.security_severity != ffi.NULL else None
        out.append(Rule(_s(r.id), _s(r.slug), _s(r.family), _SEVERITIES[r.default_severity],
                        _s(r.summary), _s(r.what), _s(r.why), _s(r.example), _s(r.fix),
                        profiles, f"CWE-{r.cwe}" if r.cwe > 0 else None,
                        float(score) if score else None))
    return out


def rules_markdown() -> str:
    """The rule documentation as Markdown (the project's RULES.md)."""
    out = ffi.new("char **")
    length = ffi.new("size_t *")
    return _take(out, length, lib.gguflintpy_rules_markdown(out, length))


def list_repository(ref: str) -> List[str]:
    """The .gguf files of a Hugging Face repository (or folder),
    hf://ORG/REPO[@REV][/FOLDER], as hf://ORG/REPO@REV/PATH URLs sorted by
    path (the Hub at $HF_ENDPOINT, token $HF_TOKEN). Needs URL support."""
    if not isinstance(ref, str):
        raise TypeError(f"ref must be a str, not {type(ref).__name__}")
    if not HAVE_URL:
        raise UnsupportedSourceError(f"{ref}: listing repositories needs a libgguflint built "
                                     "with URL support", source=ref)
    if "\0" in ref:
        raise ArgumentError("the reference contains a NUL character", status=5)
    out = ffi.new("char **")
    length = ffi.new("size_t *")
    err = ffi.new("char[]", 512)
    st = lib.gguflintpy_list(ref.encode("utf-8"), out, length, err, 512)
    if st != 0:
        detail = ffi.string(err).decode("utf-8", "backslashreplace")
        what = ffi.string(lib.gguflint_strerror(st)).decode("utf-8", "backslashreplace")
        raise BY_STATUS.get(st, Error)(f"{ref}: {what}" + (f": {detail}" if detail else ""),
                                       status=st, detail=detail, source=ref)
    text = _take(out, length, 0)
    return [u for u in text.split("\0") if u]
