"""gguf_write.py - a minimal GGUF v3 writer (little-endian) for the Python
checks of the CLI (check_cyclonedx.py, check_diff_schema.py): KVs of the
scalar, string and array types, and f32 tensors with their data. Only what
those checks need; the C tests use tests/support/gguf_builder.c."""
import struct

U32, I32, F32, BOOL, STR, ARR, U64 = 4, 5, 6, 7, 8, 9, 10
_SCALAR = {U32: "<I", I32: "<i", F32: "<f", BOOL: "<B", U64: "<Q"}


def _s(b):
    b = b.encode() if isinstance(b, str) else b
    return struct.pack("<Q", len(b)) + b


def _value(t, v):
    if t == STR:
        return _s(v)
    if t == ARR:
        et, items = v
        return struct.pack("<IQ", et, len(items)) + b"".join(_value(et, x) for x in items)
    return struct.pack(_SCALAR[t], v)


def gguf(kvs, tensors=(), alignment=32):
    """kvs: [(key, type, value)] (arrays: (ARR, (elem_type, [items]))).
    tensors: [(name, [ne...], [f32 values])]. Returns the file's bytes."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    for k, t, v in kvs:
        out += _s(k) + struct.pack("<I", t) + _value(t, v)
    data, offs = b"", []
    for name, ne, vals in tensors:
        data += b"\0" * (-len(data) % alignment)
        offs.append(len(data))
        data += struct.pack("<%df" % len(vals), *vals)
    for (name, ne, vals), off in zip(tensors, offs):
        out += _s(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        out += struct.pack("<IQ", 0, off)
    out += b"\0" * (-len(out) % alignment)
    return out + data
