"""setup.py - builds the gguflint Python package over libgguflint.

`pip install --no-build-isolation ./python` (from the project root) runs
CMake on the project's own sources to build the static library
(libgguflint.a, release flags, no tests) and the gguflint program, compiles
the cffi extension gguflint._native against src/gguflint.h and that library,
and bundles the program for the `gguflint` console script. Set
GGUFLINT_LIBRARY_DIR to a CMake build folder that already holds
libgguflint.a and gguflint.pc (and the program) to skip the CMake step (the
project's tests do). The shared steps are in gguflint_setup.py.
"""

import os
import sys

from setuptools import Extension, setup

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguflint_setup  # noqa: E402  (beside this file; not part of the package)

setup(
    version=gguflint_setup.version(),
    ext_modules=[Extension("gguflint._native", sources=[])],
    cmdclass={"build_ext": gguflint_setup.build_ext},
)
