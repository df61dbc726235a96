"""gilt.Error and the diagnostics that become it.

The library never prints: it reports diagnostics through the context's
handler. Each Context installs a handler that renders every diagnostic as
gjit prints it (`file:line:col: error: in node 'conv_1': ...`, the source
line, a caret, the notes) and keeps it. A call that fails raises
gilt.Error with the errors it reported; warnings and remarks (a compile
cache entry that was rebuilt) go to Python's warnings module as
gilt.Warning, so nothing reaches stderr unless the caller's warning
filters let it.
"""

import warnings

from . import _lib

_SEVERITY_ERROR = 0


class Error(Exception):
    """A failure of gilt: the message holds the diagnostics, with their
    locations, in the order they were reported."""


class Warning(UserWarning):  # noqa: A001 - gilt.Warning, as gilt.Error
    """A warning or remark gilt reported (not an error)."""


class Diagnostics:
    """The diagnostic handler of one context and what it has collected.

    The handler is a ctypes callback: it must stay referenced for as long
    as the context may call it, which is what this object is for."""

    def __init__(self):
        self.errors = []
        self.others = []
        self.handler = _lib.DIAG_HANDLER(self._handle)

    def _handle(self, diag, _user):
        text = _lib.collect_string(_lib.lib.gilt_diagnostic_format, diag)
        if _lib.lib.gilt_diagnostic_get_severity(diag) == _SEVERITY_ERROR:
            self.errors.append(text.rstrip("\n"))
        else:
            self.others.append(text.rstrip("\n"))

    def flush(self):
        """Hands warnings and remarks to the warnings module."""
        others, self.others = self.others, []
        for text in others:
            warnings.warn(text, Warning, stacklevel=3)

    def error(self, what):
        """The gilt.Error for a failed call: the errors reported since the
        last one, or `what` when the call reported none."""
        self.flush()
        errors, self.errors = self.errors, []
        return Error("\n".join(errors) if errors else what)

    def check(self, failed, what):
        """Raises for a failed call (a non-zero status or a NULL handle)."""
        if failed:
            raise self.error(what)
        self.flush()
        self.errors = []
