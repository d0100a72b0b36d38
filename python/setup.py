"""setup.py - builds the gguflint Python package over libgguflint.

`pip install --no-build-isolation ./python` (from the project root) runs
CMake on the project's own sources to build the static library
(libgguflint.a, release flags, no tests), then compiles the cffi extension
gguflint._native against src/gguflint.h and that library. Set
GGUFLINT_LIBRARY_DIR to a CMake build folder that already holds libgguflint.a
and gguflint.pc to skip the CMake step (the project's tests do this).
"""

import os
import re
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gguflint_build  # noqa: E402  (beside this file; not part of the package)


def version() -> str:
    """MAJOR.MINOR.PATCH from the GGUFLINT_VERSION_* macros of gguflint.h."""
    with open(os.path.join(gguflint_build.source_dir(), "src", "gguflint.h"), encoding="utf-8") as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define GGUFLINT_VERSION_%s ([0-9]+)$" % part, text, re.M)
        if not m:
            raise RuntimeError(f"GGUFLINT_VERSION_{part} not found in src/gguflint.h")
        parts.append(m.group(1))
    return ".".join(parts)


class build_ext(_build_ext):
    """Build libgguflint with CMake (unless given), then the cffi extension."""

    def cmake_library(self) -> str:
        root = gguflint_build.source_dir()
        out = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        jobs = os.environ.get("GGUFLINT_BUILD_JOBS", "2")
        subprocess.run(["cmake", "-S", root, "-B", out, "-DCMAKE_BUILD_TYPE=Release",
                        "-DGGUFLINT_TESTS=OFF", "-DGGUFLINT_SHARED=OFF"], check=True)
        subprocess.run(["cmake", "--build", out, "--target", "gguflint_static", "-j", jobs],
                       check=True)
        return out

    def run(self):
        libdir = os.environ.get("GGUFLINT_LIBRARY_DIR") or self.cmake_library()
        os.environ["GGUFLINT_LIBRARY_DIR"] = os.path.abspath(libdir)
        ffi = gguflint_build.make_ffibuilder()
        os.makedirs(self.build_temp, exist_ok=True)
        made = ffi.distutils_extension(self.build_temp, verbose=False)
        # Fill the placeholder setuptools has already prepared.
        for ext in self.extensions:
            if ext.name == made.name:
                for attr in ("sources", "include_dirs", "library_dirs", "libraries",
                             "extra_compile_args", "extra_link_args", "extra_objects", "depends",
                             "define_macros"):
                    setattr(ext, attr, list(getattr(made, attr) or []))
        super().run()


setup(
    version=version(),
    ext_modules=[Extension("gguflint._native", sources=[])],
    cmdclass={"build_ext": build_ext},
)
