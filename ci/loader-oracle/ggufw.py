"""ggufw.py - a small GGUF v3 writer for the loader oracle's generator.

A model is a plain description, so that mutants are copies with one thing
changed:

  kvs:     list of [key, vtype, value]   vtype: a value-type name below, or
                                          ('array', element-type name)
  tensors: list of [name, shape, ggml_type name]   shape in ggml order (ne0 first)

Tensor data is written as zeros of the right size (the loaders read shapes
and offsets, and the oracle never runs the model). Nothing here reads
gguflint's or llama.cpp's tables: the value and ggml type ids are the GGUF
format's own (docs/FORMAT.md)."""

import struct

VTYPES = {'u8': 0, 'i8': 1, 'u16': 2, 'i16': 3, 'u32': 4, 'i32': 5, 'f32': 6, 'bool': 7,
          'str': 8, 'array': 9, 'u64': 10, 'i64': 11, 'f64': 12}
PACK = {'u8': '<B', 'i8': '<b', 'u16': '<H', 'i16': '<h', 'u32': '<I', 'i32': '<i',
        'f32': '<f', 'bool': '<?', 'u64': '<Q', 'i64': '<q', 'f64': '<d'}
# ggml type: (id, block size, bytes per block)
GTYPES = {'F32': (0, 1, 4), 'F16': (1, 1, 2), 'Q4_0': (2, 32, 18), 'Q8_0': (8, 32, 34),
          'I8': (24, 1, 1), 'I16': (25, 1, 2), 'I32': (26, 1, 4), 'BF16': (30, 1, 2)}
ALIGN = 32


def _str(s):
    b = s.encode('utf-8') if isinstance(s, str) else bytes(s)
    return struct.pack('<Q', len(b)) + b


def _scalar(vt, v):
    if vt == 'str':
        return _str(v)
    if vt in ('f32', 'f64'):
        return struct.pack(PACK[vt], float(v))
    if vt == 'bool':
        return struct.pack('<B', 1 if v else 0)
    lo_hi = {'u8': (0, 255), 'i8': (-128, 127), 'u16': (0, 65535), 'i16': (-32768, 32767),
             'u32': (0, 2**32 - 1), 'i32': (-2**31, 2**31 - 1), 'u64': (0, 2**64 - 1),
             'i64': (-2**63, 2**63 - 1)}[vt]
    v = int(v)
    v = min(max(v, lo_hi[0]), lo_hi[1])
    return struct.pack(PACK[vt], v)


def _value(vt, v):
    if isinstance(vt, (tuple, list)):
        et = vt[1]
        out = struct.pack('<I', VTYPES[et]) + struct.pack('<Q', len(v))
        return out + b''.join(_scalar(et, x) for x in v)
    return _scalar(vt, v)


def tensor_bytes(shape, gtype):
    _, bs, bb = GTYPES[gtype]
    n = 1
    for d in shape:
        n *= d
    if shape and shape[0] % bs:
        return None
    return n // bs * bb


def _encode(model):
    """The metadata and tensor infos, padded to the data section, and the
    data section's size."""
    kvs, tensors = model['kvs'], model['tensors']
    out = [b'GGUF', struct.pack('<I', 3), struct.pack('<Q', len(tensors)),
           struct.pack('<Q', len(kvs))]
    for key, vt, v in kvs:
        tid = VTYPES['array'] if isinstance(vt, (tuple, list)) else VTYPES[vt]
        out.append(_str(key) + struct.pack('<I', tid) + _value(vt, v))
    off = 0
    sizes = []
    for name, shape, gt in tensors:
        size = tensor_bytes(shape, gt)
        if size is None:  # a row that is not a block multiple: write what fits
            size = max(1, (shape[0] // GTYPES[gt][1])) * GTYPES[gt][2]
        out.append(_str(name) + struct.pack('<I', len(shape)) +
                   b''.join(struct.pack('<Q', d) for d in shape) +
                   struct.pack('<I', GTYPES[gt][0]) + struct.pack('<Q', off))
        sizes.append(size)
        off += (size + ALIGN - 1) // ALIGN * ALIGN
    head = b''.join(out)
    head += b'\0' * ((-len(head)) % ALIGN)
    return head, off


def encode(model):
    """The bytes of a GGUF v3 file for the model description."""
    head, body = _encode(model)
    return head + bytes(body)


def write(path, model):
    """Write the file with its all-zero tensor data as a hole: the loader
    reads zeros all the same, and tens of thousands of mutants then cost
    the disk their headers only (CI machines can be short of disk)."""
    head, body = _encode(model)
    with open(path, 'wb') as f:
        f.write(head)
        f.truncate(len(head) + body)
