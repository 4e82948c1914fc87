"""Kiln from Python: compile PyTorch modules with Kiln and train them.

    import kiln
    compiled = kiln.compile(model, example_kwargs=batch)

`kiln.compile` exports the module with `torch.export`, imports its ATen
graph (`kiln.importer`), and builds a forward and backward with Kiln's
tools (found in `KILN_BUILD_DIR`, default the checkout's `build/`).
Importing `kiln` also registers `torch.compile(module, backend="kiln")`.
Supported: Python >= 3.9, torch >= 2.5 (docs/Python.md).
"""
from ._compile import CompiledModule, compile
from .errors import CallError, CompileError, KilnError, RuntimeCallError
from .importer import UnsupportedError, import_program, supported_ops

__all__ = ["compile", "CompiledModule", "import_program", "supported_ops", "KilnError",
           "CompileError", "CallError", "RuntimeCallError", "UnsupportedError"]

__version__ = "0.1.0"


def _register_backend():
    try:
        from torch._dynamo.backends.registry import register_backend
    except ImportError:  # torch without dynamo
        return
    from ._dynamo import kiln_backend
    try:
        register_backend(compiler_fn=kiln_backend, name="kiln")
    except (AssertionError, RuntimeError, ValueError):
        pass  # registered already (a reload)


_register_backend()
