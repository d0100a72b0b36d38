"""Exceptions of the gguflint package, one per libgguflint status.

A malformed or hostile GGUF file is never an exception: every problem in the
file is a Finding in the Report. Exceptions are for the caller's world: a
path that cannot be read, memory, a bad argument, an input kind that this
build cannot read.
"""

from __future__ import annotations

import builtins
from typing import Optional


class Error(Exception):
    """Base of every gguflint exception.

    status: the libgguflint status code (GGUFLINT_E_*), or None.
    detail: the library's detail of the failure ("No such file or directory").
    source: the path or URL being linted, when there is one.
    report_json: for a lint that failed to read its input, the CLI's JSON
    document for that input (with "error" and "detail"), else None."""

    status: Optional[int] = None

    def __init__(self, message: str, *, status: Optional[int] = None, detail: str = "",
                 source: Optional[str] = None, report_json: Optional[str] = None):
        super().__init__(message)
        if status is not None:
            self.status = status
        self.detail = detail
        self.source = source
        self.report_json = report_json


class IOError(Error, builtins.OSError):  # noqa: A001 - the name the issue asks for
    """The input could not be read (GGUFLINT_E_IO): missing, unreadable, a
    file that shrank while it was read, a failed download."""
    status = 1


class NotRegularFileError(IOError):
    """A path that is a directory, FIFO or device (GGUFLINT_E_NOT_REGULAR)."""
    status = 2


class NoMemoryError(Error, builtins.MemoryError):
    """An allocation failed (GGUFLINT_E_NOMEM)."""
    status = 3


class StateError(Error, builtins.RuntimeError):
    """The library was used in the wrong order (GGUFLINT_E_STATE)."""
    status = 4


class ArgumentError(Error, builtins.ValueError):
    """A bad argument (GGUFLINT_E_ARG): an unknown profile, rule, prefix or
    family in select/ignore, a closed file object."""
    status = 5


class InternalError(Error):
    """A state the library believes unreachable (GGUFLINT_E_INTERNAL): a bug,
    please report it with the input."""
    status = 6


class UnsupportedSourceError(Error, builtins.NotImplementedError):
    """An input this build cannot read (a URL when libgguflint was built
    without URL support)."""


BY_STATUS = {cls.status: cls for cls in
             (IOError, NotRegularFileError, NoMemoryError, StateError, ArgumentError,
              InternalError)}
