"""Four running sums held in one vector register, for sums whose order is fixed.

Some kernels sum in four running sums, point i into sum ``i mod 4``, so
that the sum is not one chain of dependent additions and rounds the same
on every CPU (:func:`.tails._powers_dot`). numba compiles with LLVM's loop
vectoriser, which keeps a sum in order only by leaving it scalar, and
without its SLP vectoriser, which would pack the four sums into one
register: the four stay four scalar chains. :func:`four_powers` builds the
vector code itself, one register of four doubles per running sum; each
lane's operations are those of the scalar code, in the same order, each
product and sum rounded alike (no fused multiply-add), so the results are
the same to the bit, on any CPU (without AVX, LLVM splits a register of
four in two).
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_V4 = ir.VectorType(ir.DoubleType(), 4)


def _is_vector(ty):
    """A contiguous one-dimensional float64 array."""
    return (isinstance(ty, types.Array) and ty.dtype == types.float64 and ty.ndim == 1
            and ty.layout == "C")


@intrinsic
def four_powers(typingctx, g, w, pw, blocks, sums):
    """Four steps of the powers ``pw`` and their weighted running sums, four lanes at once.

    For each block b of four points ``i = 4 b + L`` (``L`` the lane), b =
    0..``blocks`` - 1 in order, and each step q = 0..3 in order: ``pw[i] *=
    g[i]``, then ``w[i] * pw[i]`` added to lane L's running sum of step q.
    ``sums`` (16,) receives them, ``sums[4 q + L]``, each started at 0.
    ``g``, ``w``, ``pw`` are contiguous float64 arrays of at least
    ``4 blocks`` points.
    """
    if not (all(_is_vector(a) for a in (g, w, pw, sums)) and isinstance(blocks, types.Integer)):
        return None
    sig = types.void(g, w, pw, types.intp, sums)

    def codegen(context, builder, signature, args):
        gp, wp, pp, sp = (builder.bitcast(context.make_array(signature.args[k])(
            context, builder, args[k]).data, _V4.as_pointer()) for k in (0, 1, 2, 4))
        accs = [cgutils.alloca_once_value(builder, ir.Constant(_V4, [0.0] * 4))
                for _ in range(4)]
        with cgutils.for_range(builder, args[3]) as loop:
            gv = builder.load(builder.gep(gp, [loop.index]), align=8)
            wv = builder.load(builder.gep(wp, [loop.index]), align=8)
            at = builder.gep(pp, [loop.index])
            p = builder.load(at, align=8)
            for acc in accs:
                p = builder.fmul(p, gv)
                builder.store(builder.fadd(builder.load(acc), builder.fmul(wv, p)), acc)
            builder.store(p, at, align=8)
        for q, acc in enumerate(accs):
            builder.store(builder.load(acc), builder.gep(sp, [ir.Constant(ir.IntType(64), q)]),
                          align=8)
        return context.get_dummy_value()

    return sig, codegen
