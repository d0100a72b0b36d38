"""`python3 -m gguflint ARGS`: the gguflint program bundled in the package."""

import sys

from ._cli import main

sys.exit(main())
