"""`kiln.compile`: a torch.nn.Module in, a module that runs Kiln's compiled
forward and backward out.

    model = kiln.compile(model, example_kwargs=batch)
    loss = model(**batch).loss
    loss.backward()                  # fills the original parameters' .grad
    optimizer.step()

The module is exported with `torch.export` (`kiln.importer` maps its ATen
graph to Kiln), `kiln-raise-attention` turns HF's mask-and-repeat attention
back into `kiln.attention`, `kiln-autodiff mode=split` makes a forward that
also returns the residuals the backward reads and a backward that takes
them, and `kiln-compile` writes one shared library with both (and the plain
function, run when no gradient is needed). The call passes the tensors'
data pointers: no copies of contiguous inputs of the compiled dtype.
"""
import os

import torch
import torch.utils._pytree as pytree

from . import errors
from ._runtime import Library
from ._toolchain import compile_graph
from .importer import import_program

_NAME = "model"
# "cuda-emulator" runs the CUDA target's kernels on the host, on CPU tensors,
# through Kiln's GPU emulator (docs/GPUEmulator.md): a GPU-less check of the
# GPU path.
_TARGETS = ("cpu", "cuda", "cuda-emulator")


def _children(spec):
    children = getattr(spec, "children", None)
    return list(children()) if callable(children) else list(spec.children_specs)


def _describe(dtype, shape):
    return "%s%s" % (str(dtype).replace("torch.", ""), list(shape))


class _KilnFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, program, *args):
        outs, residuals = program._forward(args)
        ctx.program = program
        ctx.residuals = residuals
        # Integer and boolean outputs carry no derivative (the backward takes
        # no cotangent for them).
        ctx.mark_non_differentiable(*[o for o in outs if not o.is_floating_point()])
        return tuple(outs)

    @staticmethod
    def backward(ctx, *cotangents):
        program = ctx.program
        if ctx.residuals is None:
            raise RuntimeError("Kiln: backward through a compiled module twice; "
                               "its residuals are freed after the first backward")
        grads = program._backward(ctx.residuals, cotangents)
        ctx.residuals = None
        return (None,) + tuple(grads)


class _Program:
    """The compiled library of one exported program and how to call it."""

    def __init__(self, module, program, dtype, target, raise_attention, empty_rows_as_zero,
                 opt_level, cache, deterministic=False):
        self.module = module
        self.program = program
        if target not in _TARGETS:
            raise errors.KilnError("target=%r: expected one of %s"
                                   % (target, ", ".join(map(repr, _TARGETS))))
        if deterministic and target == "cpu":
            raise errors.KilnError("deterministic=True is for target='cuda' and "
                                   "'cuda-emulator' (the CPU backend is deterministic "
                                   "already)")
        self.target = target
        self.device = torch.device("cuda") if target == "cuda" else torch.device("cpu")
        self._on_cuda = target == "cuda"
        imp = import_program(program, name=_NAME, dtype=dtype)
        self.imp = imp
        self._owners = {}
        self._pool = []     # residual buffers free for the next forward
        graph = imp.graph
        # Argument roles, in the function's argument order: the parameters,
        # then the JSON inputs.
        self.roles = [("param", p["name"]) for p in graph.parameters]
        user_index = {name: i for i, name in enumerate(imp.user_inputs) if name is not None}
        for entry in graph.inputs:
            name = entry["name"]
            if name in user_index:
                self.roles.append(("user", user_index[name]))
            elif name in imp.buffers:
                self.roles.append(("buffer", name))
            elif name == "dropout_seed":
                self.roles.append(("seed", None))
            elif name.endswith(".detached") and name[:-len(".detached")] in imp.detached:
                self.roles.append(("detached", name[:-len(".detached")]))
            else:
                raise AssertionError("unknown graph input %r" % name)
        # Differentiate with respect to the parameters that require grad and
        # the float user inputs whose example requires grad.
        self._example = self._example_leaves()
        example = self._example
        self._specialized = [i for i, (name, ex) in enumerate(zip(imp.user_inputs, example))
                             if name is None and not isinstance(ex, torch.Tensor)]
        self._labels = []
        for role, key in self.roles:
            self._labels.append({"param": "parameter %r" % (key,),
                                 "detached": "parameter %r" % (key,),
                                 "buffer": "buffer %r" % (key,),
                                 "seed": "dropout seed"}.get(role) or
                                "input %r" % imp.user_inputs[key])
        # The fast path of flatten(): every leaf a tensor, the example's
        # arguments plain (no nested structure).
        args_spec, kwargs_spec = _children(program.call_spec.in_spec)
        plain = all(c.is_leaf() for c in _children(args_spec)) and \
            all(c.is_leaf() for c in _children(kwargs_spec)) and not self._specialized
        self._flat_nargs = len(_children(args_spec))
        self._flat_names = list(kwargs_spec.context or []) if plain else None
        self.wrt = []
        for i, (role, key) in enumerate(self.roles):
            if role == "param":
                if self._param(key).requires_grad:
                    self.wrt.append(i)
            elif role == "user":
                t = example[key]
                if isinstance(t, torch.Tensor) and t.requires_grad and t.is_floating_point():
                    self.wrt.append(i)
        if self.wrt and not any(dt.is_floating_point for dt, _ in imp.output_types):
            raise errors.KilnError(
                "Kiln: no output of the module is floating-point, so nothing of it can "
                "be differentiated (compile it without trainable parameters, or under "
                "requires_grad_(False))")
        passes = ["--canonicalize"]
        if raise_attention:
            passes.append("--kiln-raise-attention=empty-rows-as-zero=%s"
                          % ("true" if empty_rows_as_zero else "false"))
            passes.append("--canonicalize")
        if self.wrt:
            passes.append("--kiln-autodiff=function=%s mode=split wrt=%s"
                          % (_NAME, ",".join(map(str, self.wrt))))
        flags = ["--opt-level", str(opt_level)]
        if target == "cpu":
            flags += ["--mcpu", "native"]
        else:
            flags += ["--target", target]
            if deterministic:
                flags.append("--gpu-deterministic")
            if target == "cuda":
                major, minor = torch.cuda.get_device_capability()
                # fatbin: a cubin for this chip plus PTX the driver can JIT.
                flags += ["--gpu-chip", "sm_%d%d" % (major, minor), "--gpu-format", "fatbin"]
        text = graph.dumps()
        path, self.workdir, self.cached = compile_graph(text, _NAME, passes, flags,
                                                        use_cache=cache)
        self.lib = Library(path)
        self.plain = self.lib.function(_NAME)
        self.fwd = self.bwd = None
        if self.wrt:
            self.fwd = self.lib.function(_NAME + "_forward")
            self.bwd = self.lib.function(_NAME + "_backward")
            n_out = len(self.plain.outputs)
            self.n_out = n_out
            res = self.fwd.outputs[n_out:]
            # The residuals live in one buffer per call, 64-byte aligned.
            self.res_types = res
            offsets, total = [], 0
            for dt, shape in res:
                total = (total + 63) // 64 * 64
                offsets.append(total)
                n = 1
                for s in shape:
                    n *= s
                total += n * torch.empty((), dtype=dt).element_size()
            self.res_offsets = offsets
            self.res_bytes = max(total, 1)
        self.in_spec = program.call_spec.in_spec
        self.out_spec = program.call_spec.out_spec

    # -- arguments ------------------------------------------------------
    def _param(self, fqn):
        """The module's current parameter or buffer `fqn`: its owner is
        resolved once, the attribute read at every call (an optimizer's
        in-place update and a reassigned parameter are both seen)."""
        owner = self._owners.get(fqn)
        if owner is None:
            path, _, attr = fqn.rpartition(".")
            module = self.module.get_submodule(path) if path else self.module
            # nn.Module keeps parameters and buffers in these dicts (its
            # __setattr__ puts a reassigned one there too); reading them
            # skips Module.__getattr__, a microsecond per parameter.
            owner = (module, attr, module.__dict__.get("_parameters", {}),
                     module.__dict__.get("_buffers", {}))
            self._owners[fqn] = owner
        value = owner[2].get(owner[1])
        if value is None:
            value = owner[3].get(owner[1])
            if value is None:
                value = getattr(owner[0], owner[1])
        return value

    def _example_leaves(self):
        leaves = []
        for spec in self.program.graph_signature.input_specs:
            if spec.kind.name == "USER_INPUT":
                node = next(n for n in self.program.graph.nodes
                            if n.op == "placeholder" and n.name == spec.arg.name)
                leaves.append(node.meta.get("val"))
        return leaves

    def flatten(self, args, kwargs):
        # The common call: tensors only, positional and keyword arguments as
        # in the example (in any keyword order); no pytree walk.
        if self._flat_names is not None and len(args) == self._flat_nargs and \
                len(kwargs) == len(self._flat_names):
            try:
                leaves = list(args) + [kwargs[k] for k in self._flat_names]
            except KeyError:
                leaves = None
            if leaves is not None and all(type(t) is torch.Tensor or isinstance(t, torch.Tensor)
                                          for t in leaves):
                return leaves
        leaves, spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
        if spec == self.in_spec:
            return leaves
        expected_args, expected_kwargs = _children(self.in_spec)
        names = list(expected_kwargs.context) if expected_kwargs.context else []
        # Keyword arguments in another order are the same call.
        if set(kwargs) == set(names):
            leaves, spec = pytree.tree_flatten((tuple(args), {k: kwargs[k] for k in names}))
            if spec == self.in_spec:
                return leaves
        raise errors.CallError("Kiln: " + self._mismatch(args, kwargs, expected_args, names))

    def _mismatch(self, args, kwargs, expected_args, names):
        arg_specs = _children(expected_args)
        if len(args) != len(arg_specs):
            return ("the module was compiled for %d positional argument%s, got %d"
                    % (len(arg_specs), "" if len(arg_specs) == 1 else "s", len(args)))
        if set(kwargs) != set(names):
            return ("the module was compiled for the keyword arguments %s, got %s"
                    % (sorted(names), sorted(kwargs)))
        kw_specs = dict(zip(names, _children(_children(self.in_spec)[1])))
        for label, value, spec in ([("argument %d" % i, a, s)
                                    for i, (a, s) in enumerate(zip(args, arg_specs))] +
                                   [("argument %r" % k, kwargs[k], kw_specs[k]) for k in names]):
            got = pytree.tree_flatten(value)[1]
            if got != spec:
                if spec.is_leaf():
                    return "%s must be a tensor, got %s" % (label, type(value).__name__)
                return ("%s does not have the structure of the example: expected %s, got %s"
                        % (label, spec, got))
        return "the call's arguments do not have the structure of the example"

    def arguments(self, args, kwargs):
        leaves = self.flatten(args, kwargs)
        names = self.imp.user_inputs
        if len(leaves) != len(names):
            raise errors.CallError("Kiln: expected %d inputs, got %d" % (len(names), len(leaves)))
        out = []
        for role, key in self.roles:
            if role == "user":
                out.append(leaves[key])
            elif role == "seed":
                out.append(torch.randint(-2**62, 2**62, (), dtype=torch.int64))
            else:
                out.append(self._param(key))
        # Non-tensor leaves were specialized by torch.export.
        for i in self._specialized:
            if leaves[i] != self._example[i]:
                raise errors.CallError("Kiln: argument %d is %r but the module was compiled "
                                       "for %r" % (i, leaves[i], self._example[i]))
        return list(zip(out, self._labels))

    def check(self, tensors, types):
        """Checks every argument against the compiled signature; returns the
        contiguous tensors to pass."""
        # The common call first: every argument already as compiled (a few
        # attribute reads per tensor); anything else takes the loop below,
        # which converts or names what is wrong.
        ready = []
        on_cuda = self._on_cuda
        for (t, _), (dtype, shape) in zip(tensors, types):
            if type(t) is not torch.Tensor and not isinstance(t, torch.Tensor):
                break
            if t.dtype is not dtype or t.shape != shape or \
                    not (t.is_cuda if on_cuda else t.is_cpu) or not t.is_contiguous():
                break
            ready.append(t)
        else:
            return ready
        ready = []
        for (t, what), (dtype, shape) in zip(tensors, types):
            if not isinstance(t, torch.Tensor):
                raise errors.CallError("Kiln: %s must be a tensor, got %s"
                                       % (what, type(t).__name__))
            if t.dtype != dtype or t.shape != shape:
                raise errors.CallError(
                    "Kiln: %s is %s but the module was compiled for %s"
                    % (what, _describe(t.dtype, t.shape), _describe(dtype, shape)))
            if t.device.type != self.device.type:
                raise errors.CallError("Kiln: %s is on %s; this module was compiled for %s "
                                       "(target=%r)" % (what, t.device, self.device.type,
                                                        self.target))
            ready.append(t if t.is_contiguous() else t.contiguous())
        return ready

    # -- calls ------------------------------------------------------------
    def call(self, args, kwargs):
        entries = self.arguments(args, kwargs)
        grad = torch.is_grad_enabled() and self.wrt and any(
            entries[i][0].requires_grad for i in self.wrt)
        if grad:
            outs = _KilnFunction.apply(self, *[t for t, _ in entries])
        else:
            tensors = self.check(entries, self.plain.inputs)
            outs = self.plain(tensors, self.plain.new_outputs(self.device))
        return pytree.tree_unflatten(list(outs), self.out_spec)

    def _forward(self, args):
        entries = list(zip(args, self._labels))
        tensors = self.check(entries, self.fwd.inputs)
        outs = self.plain.new_outputs(self.device)
        # A residual buffer the last backward gave back is reused: a fresh
        # large allocation would be fresh pages, faulted in by the forward
        # at every step.
        buf = self._pool.pop() if self._pool else torch.empty(
            self.res_bytes, dtype=torch.uint8, device=self.device)
        base = buf.data_ptr()
        ptrs = [o.data_ptr() for o in outs] + [base + off for off in self.res_offsets]
        self.fwd.call_ptrs([t.data_ptr() for t in tensors], ptrs)
        return outs, buf

    def _backward(self, residuals, cotangents):
        base = residuals.data_ptr()
        in_ptrs = [base + off for off in self.res_offsets]
        keep = []
        for i, (c, (dt, shape)) in enumerate(zip(cotangents, self.plain.outputs)):
            if not dt.is_floating_point:
                continue  # no cotangent: kiln-autodiff gives it no argument
            if c is None:
                c = torch.zeros(shape, dtype=dt, device=self.device)
            elif c.dtype is dt and c.shape == shape and c.is_contiguous() and \
                    (c.is_cuda if self._on_cuda else c.is_cpu):
                pass  # read through its data pointer as it is
            else:
                if tuple(c.shape) != tuple(shape):
                    raise errors.CallError("Kiln: the gradient of output %d is %s, expected %s"
                                           % (i, list(c.shape), list(shape)))
                c = c.detach().to(device=self.device, dtype=dt).contiguous()
            keep.append(c)
            in_ptrs.append(c.data_ptr())
        grads = self.bwd.new_outputs(self.device)
        self.bwd.call_ptrs(in_ptrs, [g.data_ptr() for g in grads])
        if len(self._pool) < 2:
            self._pool.append(residuals)
        out = [None] * len(self.roles)
        for k, i in enumerate(self.wrt):
            out[i] = grads[k]
        return out


class CompiledModule(torch.nn.Module):
    """What `kiln.compile` returns: behaves like the original module (kept as
    `_orig_mod`, so `parameters()` and `state_dict()` are the original's),
    running Kiln's compiled code."""

    def __init__(self, module, program, **options):
        super().__init__()
        self._orig_mod = module
        self._kiln = _Program(module, program, **options)

    @property
    def kiln_library(self):
        """The path of the compiled shared library."""
        return self._kiln.lib.path

    @property
    def kiln_mlir(self):
        """The path of the compiled MLIR module (after every kiln-opt pass)."""
        return os.path.join(self._kiln.workdir, "model.mlir")

    def forward(self, *args, **kwargs):
        return self._kiln.call(args, kwargs)


def compile(module, example_args=(), example_kwargs=None, *, target="cpu", dtype=None,
            raise_attention=True, empty_rows_as_zero=True, opt_level=2, cache=True,
            strict=False, deterministic=False):
    """Compiles `module` for the shapes and dtypes of `example_args` /
    `example_kwargs` and returns a `CompiledModule`.

    - `target`: "cpu"; "cuda" (tensors on the current CUDA device, passed as
      device pointers; kernels for its compute capability); "cuda-emulator"
      (the "cuda" library's kernels run on the host by Kiln's GPU emulator,
      on CPU tensors: the GPU path checked without a GPU; slow).
    - `dtype`: compute every floating-point value in this dtype (e.g.
      `torch.float64` for a model that casts to float32 inside); the
      module's parameters must already be of it.
    - `raise_attention`: run `kiln-raise-attention` (HF's materialized masks
      and repeated K/V become one `kiln.attention`).
    - `deterministic`: (GPU targets) an attention backward without float
      atomics, bitwise reproducible run to run (`--gpu-deterministic`;
      slower).
    - `cache`: reuse a library compiled before for the same graph and options
      (`KILN_CACHE_DIR`, default `~/.cache/kiln/compiled`).
    """
    if not isinstance(module, torch.nn.Module):
        raise TypeError("kiln.compile expects a torch.nn.Module, got %s"
                        % type(module).__name__)
    if isinstance(example_args, dict) and example_kwargs is None:
        example_args, example_kwargs = (), example_args
    if not isinstance(example_args, tuple):
        example_args = (example_args,)
    program = torch.export.export(module, example_args, example_kwargs or {}, strict=strict)
    return CompiledModule(module, program, dtype=dtype, target=target,
                          raise_attention=raise_attention,
                          empty_rows_as_zero=empty_rows_as_zero, opt_level=opt_level, cache=cache,
                          deterministic=deterministic)
