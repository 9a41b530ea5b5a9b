"""``unowned(arr)``: a view of an array with no memory owner, for the engine's hot loop.

Numba counts references on every array it passes between jitted functions with atomic
instructions; with the engine's many small helpers that was over 40% of a hand's time
(measured with perf). Views with a null owner skip the counting. The caller must keep the
owning array alive while the view is used: the kernels create views of their arguments and
of scratch arrays they touch again after the loop.
"""

from __future__ import annotations

from numba.core import cgutils
from numba.extending import intrinsic


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
