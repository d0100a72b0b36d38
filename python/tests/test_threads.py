"""Threads: many lints at once give the serial results, and the GIL is
released while the library runs (checked by counting, not by timing)."""

import os
import struct
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import gguflint
from conftest import corpus_files

FILES = corpus_files()


def test_threads_give_the_serial_results():
    serial = {p: gguflint.lint(p, profile="security").to_json() for p in FILES}
    with ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            got = dict(zip(FILES, pool.map(
                lambda p: gguflint.lint(p, profile="security").to_json(), FILES)))
            assert got == serial


def test_threads_share_one_bytes_object():
    data = open(FILES[0], "rb").read()
    want = gguflint.lint(data).to_json()
    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(lambda _: gguflint.lint(data).to_json(), range(200))) == {want}


def sparse_f32_model(path, n_bytes):
    """A GGUF file with one F32 tensor of n_bytes of zeros (a sparse hole):
    a --deep lint reads all of it without the disk or the memory."""
    name = b"t"
    n = n_bytes // 4
    kv = b""
    info = struct.pack("<Q", len(name)) + name + struct.pack("<I", 1) + struct.pack("<Q", n)
    info += struct.pack("<I", 0) + struct.pack("<Q", 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + kv + info
    pad = (-len(head)) % 32
    with open(path, "wb") as f:
        f.write(head + bytes(pad))
        f.truncate(len(head) + pad + n_bytes)


def test_the_gil_is_released_during_a_lint(tmp_path):
    """With a switch interval of 10 s the main thread can run during the
    other thread's lint only if the lint released the GIL."""
    model = tmp_path / "zeros.gguf"
    sparse_f32_model(model, 1 << 30)
    started = threading.Event()
    result = []

    def work():
        started.set()
        result.append(gguflint.lint(model, deep=True))

    old = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        started.wait()
        spins = 0
        while t.is_alive():
            spins += 1
            time.sleep(0)  # lets the worker take the GIL back when it needs it
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert result and any(f.rule == "GG312" for f in result[0].findings), result
    assert spins > 100, f"the main thread ran {spins} times during the lint"
