"""`torch.compile(module, backend="kiln")`: Dynamo hands each captured FX
graph (parameters lifted to inputs) to `kiln.compile`."""
import torch


def kiln_backend(gm, example_inputs, **options):
    from ._compile import compile as kiln_compile
    compiled = kiln_compile(gm, tuple(example_inputs), **options)

    def run(*args):
        return compiled(*args)
    return run
