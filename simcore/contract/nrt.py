"""Low-level helpers for the engine's hot loop: arrays without reference counting, raw
pointers into them, and calls to strategies through stored addresses.

``unowned(arr)``: a view of an array with no memory owner. Numba counts references on every
array it passes between jitted functions with atomic instructions; with the engine's many
small helpers that was over 40% of a hand's time (measured with perf). Views with a null
owner skip the counting. The caller must keep the owning array alive while the view is used:
the kernels create views of their arguments and of scratch arrays they touch again after the
loop.

``data_ptr(arr)`` / ``view_of(ptr, offset, n)``: the engine's state array travels between its
helpers as a raw pointer (``types.CPointer(int64)``): one register per argument instead of an
array's seven words, and ``ptr[i]`` compiles to a plain load with no negative-index
wraparound check. ``view_of`` turns a stretch of it back into an (unowned) array where an
array is needed: a seat's view for its strategy, a hand for the evaluator.

``strategy_addresses(f)`` / ``call_strategy(jit, c, question, view, tab)``: a strategy
(``types.FunctionType``) is called the way numba calls a first-class function, but from the
two addresses stored in the state array, so helpers need not carry the tuple of twelve
functions (36 words per call): through its numba entry point when it has one (any jitted
dispatcher), else through its C wrapper.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


def intrinsic_for(kind):
    """``@intrinsic`` for a typer of one argument that applies to arguments of type ``kind`` only
    (to others it answers None: no implementation)."""
    def wrap(typer):
        def typer_for_kind(typingctx, arg):
            return typer(typingctx, arg) if isinstance(arg, kind) else None

        typer_for_kind.__name__, typer_for_kind.__doc__ = typer.__name__, typer.__doc__
        return intrinsic(typer_for_kind)

    return wrap


@intrinsic
def unowned(typingctx, arr):
    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        out = context.make_array(sig.return_type)(context, builder)
        cgutils.copy_struct(out, src)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    return arr(arr), codegen


@intrinsic_for(types.Array)
def data_ptr(typingctx, arr):
    """Pointer to the first element of a C-contiguous array."""

    def codegen(context, builder, sig, args):
        return context.make_array(sig.args[0])(context, builder, value=args[0]).data

    return types.CPointer(arr.dtype)(arr), codegen


@intrinsic
def view_of(typingctx, ptr, offset, n):
    """The 1-D C-contiguous array of the ``n`` elements at ``ptr + offset``, with no owner."""
    if not isinstance(ptr, types.CPointer):
        return None
    arrty = types.Array(ptr.dtype, 1, "C")

    def codegen(context, builder, sig, args):
        base, off, count = args
        intp = context.get_value_type(types.intp)
        count = context.cast(builder, count, sig.args[2], types.intp)
        out = context.make_array(arrty)(context, builder)
        itemsize = context.get_abi_sizeof(context.get_data_type(ptr.dtype))
        populate_array(out, data=builder.gep(base, [off]), shape=[count],
                       strides=[ir.Constant(intp, itemsize)], itemsize=ir.Constant(intp, itemsize),
                       meminfo=None)
        return out._getvalue()

    return arrty(ptr, offset, n), codegen


@intrinsic_for(types.CPointer)
def address_of(typingctx, ptr):
    """A pointer as an int64 (to store it in the state array)."""

    def codegen(context, builder, sig, args):
        return builder.ptrtoint(args[0], ir.IntType(64))

    return types.int64(ptr), codegen


def _pointer_from_address(dtype, what: str):
    """An intrinsic: the ``dtype`` pointer stored as an int64 by ``address_of`` (``what``)."""
    def load(typingctx, addr):
        def codegen(context, builder, sig, args):
            return builder.inttoptr(args[0], context.get_value_type(sig.return_type))

        return types.CPointer(dtype)(types.int64), codegen

    load.__name__ = load.__qualname__ = f"{dtype}_ptr"
    load.__doc__ = f"The {dtype} pointer stored as an int64 by ``address_of``{what}."
    return intrinsic(load)


uint8_ptr = _pointer_from_address(types.uint8, "")
int64_ptr = _pointer_from_address(types.int64, " (a search arena's address)")
float64_ptr = _pointer_from_address(types.float64, " (the luck model's fit sums)")


@intrinsic_for(types.FunctionType)
def strategy_addresses(typingctx, f):
    """(numba entry point, C wrapper) addresses of a first-class function value."""

    def codegen(context, builder, sig, args):
        fn = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
        i64 = ir.IntType(64)
        return context.make_tuple(builder, sig.return_type,
                                  [builder.ptrtoint(fn.jit_addr, i64), builder.ptrtoint(fn.c_addr, i64)])

    return types.UniTuple(types.int64, 2)(f), codegen


@intrinsic
def call_strategy(typingctx, jit_addr, c_addr, q, view, tab):
    """``f(q, view, tab)`` for the strategy whose ``strategy_addresses`` are given. As numba's
    own call of a first-class function: the numba entry point (errors propagate to the
    caller), or the C wrapper when there is none."""
    sig = types.int64(jit_addr, c_addr, q, view, tab)
    argtys = (types.int64, view, tab)

    def codegen(context, builder, sig, args):
        jit, cw, qv, vv, tv = args
        res = cgutils.alloca_once(builder, context.get_value_type(types.int64))
        no_jit = builder.icmp_unsigned("==", jit, ir.Constant(jit.type, 0))
        with builder.if_else(no_jit, likely=False) as (then, orelse):
            with then:
                argvals = [context.get_value_type(t) for t in argtys]
                fnty = ir.FunctionType(context.get_value_type(types.int64), argvals)
                fn = builder.inttoptr(cw, fnty.as_pointer())
                builder.store(builder.call(fn, [qv, vv, tv]), res)
            with orelse:
                fnty = context.call_conv.get_function_type(types.int64, argtys)
                fn = builder.inttoptr(jit, fnty.as_pointer())
                status, out = context.call_conv.call_function(builder, fn, types.int64, argtys, [qv, vv, tv])
                with cgutils.if_unlikely(builder, status.is_error):
                    context.call_conv.return_status_propagate(builder, status)
                builder.store(out, res)
        return builder.load(res)

    return sig, codegen


@intrinsic_for(types.Integer)
def nonneg(typingctx, i):
    """``i``, promised to be >= 0 (``llvm.assume``): an array index known to be non-negative
    compiles to a plain load, without numba's negative-index wraparound (a compare, a
    conditional move and an add per load in the strategies' table lookups)."""

    def codegen(context, builder, sig, args):
        zero = ir.Constant(args[0].type, 0)
        assume = builder.module.declare_intrinsic("llvm.assume", fnty=ir.FunctionType(ir.VoidType(), [ir.IntType(1)]))
        builder.call(assume, [builder.icmp_signed(">=", args[0], zero)])
        return args[0]

    return i(i), codegen


@intrinsic_for(types.Integer)
def as_float64(typingctx, i):
    """The float64 whose bits an int64 holds (a strategy's float parameter in its view)."""

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(i), codegen


@intrinsic_for(types.Float)
def float_bits(typingctx, x):
    """The int64 holding a float64's bits (``as_float64`` reads it back): the engine keeps floats
    in its int64 state this way."""

    def codegen(context, builder, sig, args):
        value = builder.fpext(args[0], ir.DoubleType()) if isinstance(sig.args[0], types.Float) and \
            sig.args[0].bitwidth < 64 else args[0]
        return builder.bitcast(value, ir.IntType(64))

    return types.int64(x), codegen
