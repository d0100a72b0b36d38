"""gguflint_setup.py - what both setup.py files share (python/setup.py for
`pip install ./python`, the root setup.py for `pip install .`, which is what
pre-commit's `language: python` hooks run in a clone of the repository).

build_ext builds libgguflint.a and the gguflint program with CMake (unless
GGUFLINT_LIBRARY_DIR names a build folder that has them), compiles the cffi
extension gguflint._native against that library, and copies the program into
the package as gguflint/_bin/gguflint: the wheel's `gguflint` console script
(gguflint._cli) runs it, so the whole CLI, config files included, is there
without anything on PATH. GGUFLINT_CLI_BINARY names another program to
bundle (ci/release.sh gives its release binary).
"""

import os
import re
import shutil
import subprocess
import sys

from setuptools.command.build_ext import build_ext as _build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gguflint_build  # noqa: E402  (beside this file; not part of the package)

#: Where the bundled program goes inside the package.
CLI_IN_PACKAGE = os.path.join("gguflint", "_bin", "gguflint")


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
    """Build libgguflint and the CLI with CMake (unless given), then the cffi
    extension, then bundle the CLI."""

    def cmake_build(self) -> str:
        root = gguflint_build.source_dir()
        out = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        jobs = os.environ.get("GGUFLINT_BUILD_JOBS", "2")
        subprocess.run(["cmake", "-S", root, "-B", out, "-DCMAKE_BUILD_TYPE=Release",
                        "-DGGUFLINT_TESTS=OFF", "-DGGUFLINT_SHARED=OFF"], check=True)
        subprocess.run(["cmake", "--build", out, "--target", "gguflint_static", "gguflint",
                        "-j", jobs], check=True)
        return out

    def bundle_cli(self, libdir: str) -> None:
        cli = os.environ.get("GGUFLINT_CLI_BINARY") or os.path.join(libdir, "gguflint")
        if not (os.path.isfile(cli) and os.access(cli, os.X_OK)):
            print(f"gguflint: no program at {cli}: the package's `gguflint` command will "
                  "say so when run (set GGUFLINT_CLI_BINARY)", file=sys.stderr)
            return
        dest = os.path.join(self.build_lib, CLI_IN_PACKAGE)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(cli, dest)

    def run(self):
        libdir = os.environ.get("GGUFLINT_LIBRARY_DIR") or self.cmake_build()
        libdir = os.path.abspath(libdir)
        os.environ["GGUFLINT_LIBRARY_DIR"] = libdir
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
        self.bundle_cli(libdir)


def _toml(path: str) -> dict:
    try:
        import tomllib as toml  # Python 3.11
    except ImportError:  # pragma: no cover - older pythons
        try:
            import tomli as toml  # type: ignore[no-redef]
        except ImportError:
            from setuptools.extern import tomli as toml  # type: ignore[no-redef]
    with open(path, "rb") as f:
        return toml.load(f)


def root_metadata() -> dict:
    """setup() arguments for the root setup.py: python/pyproject.toml's
    [project] table (its one home) with the package under python/."""
    project = _toml(os.path.join(HERE, "pyproject.toml"))["project"]
    with open(os.path.join(HERE, project["readme"]), encoding="utf-8") as f:
        readme = f.read()
    scripts = project.get("scripts", {})
    return dict(
        name=project["name"],
        description=project["description"],
        long_description=readme,
        long_description_content_type="text/markdown",
        python_requires=project.get("requires-python"),
        install_requires=project.get("dependencies", []),
        extras_require=project.get("optional-dependencies", {}),
        entry_points={"console_scripts": [f"{k} = {v}" for k, v in scripts.items()]},
        packages=["gguflint"],
        package_dir={"gguflint": os.path.relpath(os.path.join(HERE, "gguflint"))},
        package_data={"gguflint": ["py.typed"]},
    )
