"""A lint function for the scan tests that kills its worker process on
inputs whose name contains CRASH (a stand-in for a library bug), and lints
everything else normally. Named in ScanOptions(lint="crashers:lint")."""

import os
import signal

import gguflint


def lint(source, **kw):
    if "CRASH" in os.path.basename(source):
        os.kill(os.getpid(), signal.SIGKILL)
    return gguflint.lint(source, **kw)
