"""setup.py at the root: `pip install .` from a clone builds the Python
package of python/ (the library inside, and the gguflint program for its
`gguflint` console script). pre-commit's `language: python` hooks
(.pre-commit-hooks.yaml) install a hook repository this way. The package's
metadata lives once, in python/pyproject.toml; python/gguflint_setup.py maps
it here. Offline: pip install --no-build-isolation --no-index .
"""

import os
import sys

from setuptools import Extension, setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
import gguflint_setup  # noqa: E402

setup(
    version=gguflint_setup.version(),
    ext_modules=[Extension("gguflint._native", sources=[])],
    cmdclass={"build_ext": gguflint_setup.build_ext},
    **gguflint_setup.root_metadata(),
)
