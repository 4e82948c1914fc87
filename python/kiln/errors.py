"""Kiln's Python exceptions."""


class KilnError(Exception):
    """Base class of every error `kiln` raises."""


class CompileError(KilnError):
    """A Kiln tool rejected the graph (the message holds its diagnostics)."""


class CallError(KilnError, TypeError):
    """A compiled module was called with arguments that do not match the
    example it was compiled for (shape, dtype, device, structure)."""


class RuntimeCallError(KilnError, RuntimeError):
    """The compiled library returned an error."""
