"""Imports a `torch.export.ExportedProgram` (ATen IR) into a Kiln JSON graph.

The design follows torch-mlir's FX importer: one pass over the FX graph in
program order, one handler per ATen overload, the program's graph signature
deciding what each placeholder is (parameter, buffer, lifted constant, user
input). The result is a JSON model graph (docs/GraphJson.md) that
`kiln-translate --import-graph-json --lift-parameters` turns into a function
whose leading arguments are the parameters, named after the module's own
`named_parameters()`.

Rules the handlers keep:

- **Every argument is honoured or rejected.** A handler reads the schema
  arguments it implements through `Args`; any other argument whose value is
  not its schema default makes the node unsupported, with the argument named.
- **Dtypes follow PyTorch**: each node's result dtype is the one torch
  computed (`node.meta["val"]`), operands are converted to it where torch
  promotes. With `dtype=` every floating dtype becomes that one (the f64
  check of a model that casts to f32 inside).
- **Values that depend on no input are folded** by running the ATen op in
  torch (masks built from `arange`, `new_ones`, comparisons), so they reach
  Kiln as constants that `kiln-raise-attention` can read.
- **One error for the whole graph**: every unsupported node is collected,
  with its ATen op and the model's source line, into one `UnsupportedError`.
"""
import math
import operator
import os
import traceback

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind

from ._graph import DTYPES, Graph, Value
from .errors import KilnError


class UnsupportedError(KilnError):
    """Raised with one message naming every node Kiln cannot import."""

    def __init__(self, problems):
        self.problems = problems
        lines = ["Kiln cannot import %d node%s of this program:" %
                 (len(problems), "" if len(problems) == 1 else "s")]
        for p in problems:
            lines.append("  %s (%s): %s" % (p["node"], p["op"], p["reason"]))
            if p.get("source"):
                lines.append("      at %s" % p["source"])
        super().__init__("\n".join(lines))


class _Unsupported(Exception):
    pass


class _Poison:
    """The value of a node that could not be imported; its users are skipped
    (they are reported only if unsupported themselves)."""


def _source_line(node):
    """The innermost frame of the node's stack trace outside torch: file,
    line and code, e.g. `modeling_qwen3.py:84 (forward): x = self.act(y)`."""
    trace = node.meta.get("stack_trace")
    if not trace:
        return None
    lines = trace.strip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i].strip()
        if line.startswith("File "):
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            try:
                path = line.split('"')[1]
                rest = line.split('"', 2)[2]
                lineno = rest.split("line")[1].split(",")[0].strip()
                func = rest.split(" in ")[-1].strip()
            except IndexError:
                return line
            if "/torch/" in path and i > 1:
                continue
            short = path.rsplit("/", 2)
            short = "/".join(short[-2:]) if len(short) > 1 else path
            return "%s:%s (%s): %s" % (short, lineno, func, code)
    return lines[-1]


class Args:
    """The bound schema arguments of one ATen node, recording which ones the
    handler read, so that no argument is silently dropped."""

    def __init__(self, node, schema, values):
        self.node, self.schema, self.values = node, schema, values
        self.read = set()

    def __getitem__(self, name):
        self.read.add(name)
        return self.values[name]

    def get(self, name, default=None):
        if name not in self.values:
            return default
        self.read.add(name)
        return self.values[name]

    def ignore(self, *names):
        """Arguments with no meaning for a Kiln graph (device, layout,
        pin_memory, memory_format, non_blocking): read and dropped on
        purpose."""
        self.read.update(names)

    def check_defaults(self):
        for arg in self.schema.arguments:
            name = arg.name
            if name in self.read or name not in self.values:
                continue
            value = self.values[name]
            default = arg.default_value if arg.has_default_value() else object()
            if _same_default(value, default):
                continue
            raise _Unsupported("argument %s=%s is not supported" % (name, _short(value)))


# The Python types of the enum kinds of a schema's `real_type` (its `type`
# says `int` for all three, and exported graphs pass ints too: Hugging Face
# models' `contiguous` has memory_format=0).
_ENUMS = {"ScalarTypeType": torch.dtype, "LayoutType": torch.layout,
          "MemoryFormatType": torch.memory_format}


def _matches(value, t):
    """Whether `value`, an FX argument after lookup, fits the schema type
    `t` (an argument's `real_type`); kinds Kiln's handlers never read
    (Device, str, ...) always fit."""
    kind = t.kind()
    if kind == "OptionalType":
        return value is None or _matches(value, t.getElementType())
    if kind == "TensorType":
        # Python numbers stand for 0-d tensors (aten.mul.Tensor(x, 0.5)).
        return isinstance(value, (Value, torch.Tensor, bool, int, float))
    if kind in _ENUMS:
        return (isinstance(value, _ENUMS[kind])
                or (isinstance(value, int) and not isinstance(value, bool)))
    if kind in ("IntType", "SymIntType"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in ("FloatType", "SymFloatType"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind in ("BoolType", "SymBoolType"):
        return isinstance(value, bool)
    if kind == "NumberType":
        return isinstance(value, (bool, int, float))
    if kind == "ListType":
        element = t.getElementType()
        if element.kind() in ("IntType", "SymIntType") and _matches(value, element):
            return True  # int[1] arguments take one int
        return (isinstance(value, (list, tuple))
                and all(_matches(v, element) for v in value))
    return True


def _kind_name(value):
    if isinstance(value, (Value, torch.Tensor)):
        return "a tensor"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "%s %s" % (type(value).__name__, _short(value))


def _internal_error(e):
    """The reason reported for a node on which the importer itself failed:
    what a well-formed torch.export program never does, but an edited one
    can (an argument of the wrong type that a handler read, a `meta["val"]`
    that contradicts the inputs). One clean error instead of a traceback,
    naming the exception and the importer's innermost frame."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if os.path.dirname(f.filename) == os.path.dirname(__file__)]
    where = ("%s:%d" % (os.path.basename(frames[-1].filename), frames[-1].lineno)
             if frames else "?")
    message = str(e).splitlines()[0] if str(e) else ""
    return ("the importer failed on this node (%s: %s, at %s); is the program "
            "malformed?" % (type(e).__name__, message[:200], where))


def _same_default(value, default):
    if isinstance(value, (Value, torch.Tensor)):
        return False
    try:
        return value == default or (value is None and default is None)
    except Exception:
        return False


def _short(v):
    if isinstance(v, Value):
        return "tensor<%s%s>" % ("x".join(map(str, v.shape)) + "x" if v.shape else "", DTYPES[v.dtype])
    if isinstance(v, torch.Tensor):
        return "constant tensor %s" % list(v.shape)
    return repr(v)


_HANDLERS = {}


def handles(*names):
    def register(fn):
        for n in names:
            _HANDLERS[n] = fn
        return fn
    return register


def supported_ops():
    """The ATen overloads the importer maps, as `aten.add.Tensor` strings."""
    return sorted(_HANDLERS)


_SKIP = {"aten._assert_tensor_metadata.default", "aten._assert_scalar.default",
         "aten.sym_constrain_range_for_size.default",
         "aten._assert_async.msg", "aten._assert_async.default"}

# Ops that must not be folded even when their inputs are constants.
_NO_FOLD = {"aten.dropout.default", "aten.native_dropout.default",
            "aten.rand.default", "aten.randn.default", "aten.bernoulli.p",
            "aten.empty.memory_format", "aten.empty_like.default"}


class Importer:
    def __init__(self, program: ExportedProgram, name="forward", dtype=None,
                 lift_parameters=True):
        if not isinstance(program, ExportedProgram):
            raise TypeError("expected a torch.export.ExportedProgram, got %s"
                            % type(program).__name__)
        self.program = program
        self.graph = Graph(name)
        self.force = dtype
        if dtype is not None and dtype not in (torch.float16, torch.bfloat16,
                                               torch.float32, torch.float64):
            raise ValueError("dtype must be a floating dtype, got %s" % dtype)
        self.env = {}
        self.problems = []
        self._consts = {}
        self.parameters = []     # (fqn, placeholder) in argument order
        self.buffers = []        # fqn of buffers passed as inputs
        self.user_inputs = []    # placeholder names of the user inputs
        self.detached = {}       # parameter fqn -> Value of its detached copy input
        self.seed = None         # Value of the dropout seed input, when needed
        self.outputs = []        # names of the graph outputs
        self.output_types = []   # their (dtype, shape)
        self.lift = lift_parameters

    # -- dtypes -----------------------------------------------------------
    def fdt(self, dtype):
        if self.force is not None and dtype is not None and dtype.is_floating_point:
            return self.force
        return dtype

    def meta(self, node):
        val = node.meta.get("val")
        if isinstance(val, (list, tuple)):
            return [self._tensor_meta(v) for v in val]
        return self._tensor_meta(val)

    def _tensor_meta(self, val):
        if not isinstance(val, torch.Tensor):
            raise _Unsupported("result is not a tensor (%s)" % _short(val))
        for s in val.shape:
            if not isinstance(s, int):
                raise _Unsupported("dynamic dimension %s: Kiln graphs are statically shaped" % s)
        if val.dtype not in DTYPES:
            raise _Unsupported("result dtype %s has no Kiln element type" % val.dtype)
        return self.fdt(val.dtype), tuple(val.shape)

    # -- values -----------------------------------------------------------
    def val(self, x, dtype=None):
        """A Value for a tensor operand (a constant is materialized once)."""
        if isinstance(x, Value):
            return x if dtype is None else self.cast(x, dtype)
        if isinstance(x, torch.Tensor):
            t = x
            if t.dtype.is_floating_point and self.force is not None:
                t = t.to(self.force)
            if dtype is not None:
                t = t.to(dtype)
            key = (id(x), t.dtype)
            if key not in self._consts:
                self._consts[key] = (x, self.graph.constant(t))
            return self._consts[key][1]
        if isinstance(x, (bool, int, float)):
            if dtype is None:
                raise _Unsupported("a scalar where a tensor is needed")
            return self.scalar(x, dtype)
        raise _Unsupported("operand %s is not a tensor" % _short(x))

    def scalar(self, value, dtype):
        if dtype == torch.bool:
            value = bool(value)
        elif not dtype.is_floating_point:
            if isinstance(value, float) and not value.is_integer():
                raise _Unsupported("scalar %r for an integer tensor" % value)
            value = int(value)
        return self.val(torch.tensor(value, dtype=dtype))

    def cast(self, v, dtype):
        if v.dtype == dtype:
            return v
        return self.graph.op("convert", [v], dtype, v.shape, with_type=True, hint="convert")

    def op(self, name, inputs, dtype, shape, attrs=None, with_type=False):
        return self.graph.op(name, inputs, dtype, shape, attrs, hint=self.hint,
                             with_type=with_type)

    # -- the walk ---------------------------------------------------------
    def run(self):
        sig = self.program.graph_signature
        specs = {s.arg.name: s for s in sig.input_specs}
        for spec in sig.output_specs:
            if spec.kind not in (OutputKind.USER_OUTPUT,):
                self.problems.append({
                    "node": spec.arg.name, "op": spec.kind.name,
                    "reason": "the program mutates %s (%s); Kiln compiles pure functions"
                              % (spec.target, spec.kind.name.lower()), "source": None})
        placeholders = [n for n in self.program.graph.nodes if n.op == "placeholder"]
        # Parameters first (they become the leading arguments), then buffers,
        # then user inputs, whatever order the program lists them in.
        for kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR,
                     InputKind.USER_INPUT, InputKind.CUSTOM_OBJ, InputKind.TOKEN):
            for n in placeholders:
                spec = specs[n.name]
                if spec.kind != kind:
                    continue
                self.placeholder(n, spec)
        for n in self.program.graph.nodes:
            if n.op == "call_function":
                self.call(n)
            elif n.op == "output":
                self.guarded(n, "output", self.output)
            elif n.op == "get_attr":
                self.env[n] = getattr(self.program.graph_module, n.target)
        if self.problems:
            raise UnsupportedError(self.problems)
        return self.graph

    def placeholder(self, n, spec):
        kind = spec.kind
        if kind == InputKind.CONSTANT_TENSOR:
            self.env[n] = self.program.constants[spec.target]
            return
        if kind in (InputKind.CUSTOM_OBJ, InputKind.TOKEN):
            self.problems.append({"node": n.name, "op": kind.name,
                                  "reason": "unsupported program input", "source": None})
            self.env[n] = _Poison()
            return
        val = n.meta.get("val")
        if not isinstance(val, torch.Tensor):
            # A non-tensor user input (None, an int) was specialized by
            # torch.export: its uses hold the constant already.
            self.env[n] = val
            if kind == InputKind.USER_INPUT:
                self.user_inputs.append(None)
            return
        try:
            dtype, shape = self.meta(n)
        except _Unsupported as e:
            self.problems.append({"node": n.name, "op": "input", "reason": str(e),
                                  "source": None})
            self.env[n] = _Poison()
            return
        if val.dtype not in DTYPES:
            self.problems.append({"node": n.name, "op": "input",
                                  "reason": "dtype %s has no Kiln element type" % val.dtype,
                                  "source": None})
            self.env[n] = _Poison()
            return
        if kind == InputKind.PARAMETER:
            self.parameters.append(spec.target)
            if self.lift:
                self.env[n] = self.graph.add_parameter(spec.target, dtype, shape)
            else:
                p = self.program.state_dict[spec.target]
                self.env[n] = self.val(p.detach())
        elif kind == InputKind.BUFFER:
            self.buffers.append(spec.target)
            self.env[n] = self.graph.add_input(spec.target, dtype, shape)
        else:
            self.user_inputs.append(n.name)
            self.env[n] = self.graph.add_input(n.name, dtype, shape)
        if kind != InputKind.USER_INPUT and isinstance(self.env[n], Value):
            self.env[n].fqn = spec.target

    def lookup(self, a):
        if isinstance(a, torch.fx.Node):
            if a not in self.env:
                raise _Unsupported("uses %s, which has no value before it" % a.name)
            return self.env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(self.lookup(x) for x in a)
        return a

    def call(self, n):
        target = str(n.target) if not n.target is operator.getitem else "getitem"
        if target in _SKIP:
            return
        self.hint = n.name
        if not self.guarded(n, target, lambda n: self._call(n, target)):
            self.env[n] = _Poison()

    def guarded(self, n, op, step):
        """Runs `step(n)`; a node it cannot import, or one it fails on, is
        reported (as `op`) instead. Returns whether it succeeded."""
        try:
            step(n)
            return True
        except _Unsupported as e:
            self.report(n, op, str(e))
        except Exception as e:  # noqa: BLE001 -- see _internal_error
            self.report(n, op, _internal_error(e))
        return False

    def _call(self, n, target):
        inputs = [self.lookup(a) for a in n.args]
        kwargs = {k: self.lookup(v) for k, v in n.kwargs.items()}

        def flat(xs):
            for x in xs:
                if isinstance(x, (list, tuple)):
                    yield from flat(x)
                else:
                    yield x
        leaves = list(flat(inputs)) + list(flat(kwargs.values()))
        if any(isinstance(x, _Poison) for x in leaves):
            self.env[n] = _Poison()
            if target not in _HANDLERS and target != "getitem":
                self.report(n, target, "no Kiln mapping for this ATen op")
            return
        if target == "getitem":
            self.env[n] = inputs[0][inputs[1]]
            return
        # The arguments match the schema before torch folds the op: torch
        # itself can crash on arguments of the wrong kind (a segfault after
        # a mutated layout argument, test/fuzz/fuzz_torch_export.py).
        schema = hasattr(n.target, "_schema")
        args = self.bind(n, inputs, kwargs) if schema else None
        if (schema and target not in _NO_FOLD
                and not any(isinstance(x, Value) for x in leaves)):
            self.env[n] = self.fold(n, inputs, kwargs)
            return
        handler = _HANDLERS.get(target)
        if handler is None:
            self.report(n, target, "no Kiln mapping for this ATen op")
            self.env[n] = _Poison()
            return
        result = handler(self, n, args)
        args.check_defaults()
        self.env[n] = result

    def report(self, n, target, reason):
        self.problems.append({"node": n.name, "op": target, "reason": reason,
                              "source": _source_line(n)})

    def bind(self, n, inputs, kwargs):
        """The node's arguments by schema name, each checked against its
        schema type: a malformed node is unsupported, with the argument
        named, before any handler reads it."""
        schema = n.target._schema
        positional = [a for a in schema.arguments if not a.kwarg_only]
        if len(inputs) > len(positional):
            raise _Unsupported("%d positional arguments, the schema takes %d"
                               % (len(inputs), len(positional)))
        names = {a.name for a in schema.arguments}
        for name in kwargs:
            if name not in names:
                raise _Unsupported("unknown argument %s" % name)
        values = {}
        for i, arg in enumerate(schema.arguments):
            if i < len(inputs) and not arg.kwarg_only:
                if arg.name in kwargs:
                    raise _Unsupported("argument %s given twice" % arg.name)
                values[arg.name] = inputs[i]
            elif arg.name in kwargs:
                values[arg.name] = kwargs[arg.name]
            elif arg.has_default_value():
                values[arg.name] = arg.default_value
            else:
                raise _Unsupported("argument %s is missing" % arg.name)
            if not _matches(values[arg.name], arg.real_type):
                raise _Unsupported("argument %s is %s, the schema wants %s"
                                   % (arg.name, _kind_name(values[arg.name]),
                                      arg.real_type))
        return Args(n, schema, values)

    def fold(self, n, inputs, kwargs):
        try:
            with torch.no_grad():
                result = n.target(*inputs, **kwargs)
        except Exception as e:  # the op rejected its constant inputs
            raise _Unsupported("folding a constant failed: %s" % e)
        if isinstance(result, torch.Tensor):
            return result
        if isinstance(result, (list, tuple)) and all(isinstance(r, torch.Tensor) for r in result):
            return list(result)
        if isinstance(result, (int, float, bool)):
            return result
        raise _Unsupported("folded to a %s" % type(result).__name__)

    def output(self, n):
        outs = n.args[0]
        sig = self.program.graph_signature
        names = []
        for spec, o in zip(sig.output_specs, outs):
            if spec.kind != OutputKind.USER_OUTPUT:
                continue
            v = self.lookup(o)
            if isinstance(v, _Poison):
                continue
            name = "out%d" % len(names)
            names.append(name)
            if isinstance(v, (int, float, bool)) or v is None:
                self.problems.append({"node": str(o), "op": "output",
                                      "reason": "a non-tensor output (%r)" % (v,),
                                      "source": None})
                continue
            v = self.val(v)
            self.output_types.append((v.dtype, v.shape))
            self.graph.add_output(name, v)
        self.outputs = names

    # -- helpers for handlers -------------------------------------------
    def dim(self, d, rank):
        if not -max(rank, 1) <= d < max(rank, 1):
            raise _Unsupported("dim %d out of range for rank %d" % (d, rank))
        return d + rank if d < 0 else d

    def seed_input(self):
        if self.seed is None:
            self.seed = self.graph.add_input("dropout_seed", torch.int64, ())
        return self.seed

    def detached_parameter(self, v):
        """A copy of parameter `v` that the gradient does not reach: an extra
        input fed with the same tensor (kiln.compile passes the same
        pointer)."""
        fqn = v.fqn
        if fqn is None or not self.lift:
            raise _Unsupported("needs a stop-gradient on a computed value")
        if fqn not in self.detached:
            self.detached[fqn] = self.graph.add_input(fqn + ".detached", v.dtype, v.shape)
        return self.detached[fqn]


def import_program(program, name="forward", dtype=None):
    """Imports `program`; returns the `Importer` (its `.graph` is the JSON
    graph, `.parameters`/`.buffers`/`.user_inputs` the argument roles)."""
    imp = Importer(program, name=name, dtype=dtype)
    imp.run()
    return imp


# The handlers live in a module of their own.
from . import _aten  # noqa: E402,F401
