"""Counter-based seeding and the xoshiro256** generator for numba kernels.

Chunk ``j`` of a run with seed ``s`` draws from the stream ``(s, j)``: its
xoshiro256** state (Blackman & Vigna 2018) is four SplitMix64 outputs of a
mix of ``s`` and ``j``, so a chunk's numbers do not depend on which thread
or process runs it. Normals come from the 256-layer ziggurat of Marsaglia
& Tsang (2000), one 64-bit draw per normal in 99% of cases.

The module also holds the kernels' four-lane SIMD vectors (:data:`F4`, an
LLVM ``<4 x double>`` value, with :func:`vload`, :func:`vstore`,
:func:`vsplat`, :func:`vbroadcast`, :func:`vmin`, :func:`vmax` and ``+ - *``): a hot loop that
keeps its accumulators in such values holds them in registers, where
numba arrays would cost a load and a store per update, and LLVM's own
vectorisation of a loop over arrays checks their overlap at run time on
every entry. Each lane computes exactly what the scalar code computes,
with the same operations in the same order, so results are unchanged.
"""

import math
import operator
from typing import NamedTuple

import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import njit
from numba.core import cgutils, config, types
from numba.core.extending import intrinsic, models, register_model
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature

from .options import OPTS as _OPTS

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TWO53 = 1.0 / 9007199254740992.0


def _ziggurat_tables(layers=256, r=3.6541528853610088, v=4.92867323399e-3):
    """Layer edges ``x`` (descending, ``x[layers] = 0``) and ``f(x)``.

    ``r`` is the start of the tail and ``v`` the area of each layer for the
    unnormalised density ``exp(-x^2 / 2)`` (Marsaglia & Tsang 2000).
    """
    x = np.empty(layers + 1)
    fr = math.exp(-0.5 * r * r)
    x[0] = v / fr
    x[1] = r
    for i in range(1, layers - 1):
        x[i + 1] = math.sqrt(-2.0 * math.log(v / x[i] + math.exp(-0.5 * x[i] ** 2)))
    x[layers] = 0.0
    return x, np.exp(-0.5 * x * x)


_ZIG_X, _ZIG_F = _ziggurat_tables()
_ZIG_R = _ZIG_X[1]


@njit(**_OPTS)
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class Span(NamedTuple):
    """The chunks one kernel call runs, and where their random streams start.

    Chunk ``j`` covers replicates ``j * chunk_size`` up to ``replicates``
    and draws from stream ``(seed, stream0 + j)`` (or, in kernels with a
    stream per replicate, ``(seed, stream0 + replicate)``). Every chunked
    kernel takes a Span as its first argument.
    """

    seed: int
    stream0: int
    chunk0: int
    nchunks: int
    chunk_size: int
    replicates: int

    def split(self, parts):
        """The span cut into at most ``parts`` consecutive spans of whole chunks."""
        parts = max(1, min(parts, self.nchunks))
        cuts = [self.nchunks * p // parts for p in range(parts + 1)]
        return [self._replace(chunk0=self.chunk0 + a, nchunks=b - a)
                for a, b in zip(cuts, cuts[1:])]


@njit(**_OPTS)
def chunk_bounds(span, c):
    """``(first replicate, replicate count)`` of the ``c``-th chunk of ``span``."""
    first = (span.chunk0 + c) * span.chunk_size
    return first, min(span.chunk_size, span.replicates - first)


@njit(**_OPTS)
def chunk_stream(span, c):
    """Generator of the ``c``-th chunk of ``span``: stream ``stream0 + chunk``."""
    return rng_init(span.seed, span.stream0 + span.chunk0 + c)


@njit(**_OPTS)
def rng_init(seed, stream):
    """xoshiro256** state for ``(seed, stream)``; both below 2**63."""
    st = np.empty(4, dtype=np.uint64)
    x = _mix64(np.uint64(seed) + _GOLDEN) ^ (np.uint64(stream) * np.uint64(0xD1B54A32D192ED03))
    for i in range(4):
        x = x + _GOLDEN
        st[i] = _mix64(x)
    return st


@njit(**_OPTS)
def next_state(s0, s1, s2, s3):
    """One xoshiro256** step of a state held in four scalars.

    Returns ``(output, s0, s1, s2, s3)``. Hot loops keep the state in local
    scalars (``*_state`` functions): a function taking the state array
    costs a reference count on every call, and LLVM cannot tell the array
    from those the loop writes. Normals drawn through the array took 28 ns
    more each.
    """
    r = s1 * np.uint64(5)
    result = ((r << np.uint64(7)) | (r >> np.uint64(57))) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    return result, s0, s1, s2, s3


@njit(**_OPTS)
def uniform_state(s0, s1, s2, s3):
    """Uniform double in the open interval (0, 1): ``(u, s0, s1, s2, s3)``."""
    bits, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
    return (float(bits >> np.uint64(11)) + 0.5) * _TWO53, s0, s1, s2, s3


@njit(**_OPTS)
def _normal_slow(i, x, s0, s1, s2, s3):
    """The ziggurat's rare paths: the tail (layer 0) and the wedges.

    Returns ``(magnitude, s0, s1, s2, s3)``; on rejection it starts over in
    a fresh layer.
    """
    while True:
        if i == 0:
            while True:
                u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
                a = -math.log(u) / _ZIG_R
                u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
                b = -math.log(u)
                if 2.0 * b >= a * a:
                    return _ZIG_R + a, s0, s1, s2, s3
        u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        if _ZIG_F[i] + u * (_ZIG_F[i + 1] - _ZIG_F[i]) < math.exp(-0.5 * x * x):
            return x, s0, s1, s2, s3
        bits, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
        i = int(bits & np.uint64(255))
        x = float(bits >> np.uint64(11)) * _TWO53 * _ZIG_X[i]
        if x < _ZIG_X[i + 1]:
            return x, s0, s1, s2, s3


@intrinsic
def _with_sign(typingctx, x, bits):
    """``x`` with its sign bit flipped when the top bit of ``bits`` is set
    (``-x`` exactly, zeros included)."""
    if not (isinstance(x, types.Float) and bits == types.uint64):
        return None

    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        sign = builder.and_(args[1], ir.Constant(i64, 1 << 63))
        flipped = builder.xor(builder.bitcast(args[0], i64), sign)
        return builder.bitcast(flipped, ir.DoubleType())
    return types.float64(x, bits), codegen


@njit(**_OPTS)
def normal_state(s0, s1, s2, s3):
    """Standard normal by the 256-layer ziggurat (Marsaglia & Tsang 2000).

    The low 8 bits of one 64-bit draw pick the layer, bit 8 the sign and
    the top 53 bits the position; the draw is accepted at once when it lies
    inside the layer's rectangle under the curve. Returns
    ``(z, s0, s1, s2, s3)``.
    """
    bits, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
    i = int(bits & np.uint64(255))
    x = float(bits >> np.uint64(11)) * _TWO53 * _ZIG_X[i]
    if x >= _ZIG_X[i + 1]:
        x, s0, s1, s2, s3 = _normal_slow(i, x, s0, s1, s2, s3)
    # the sign (bit 8) set without a branch: a random branch is mispredicted
    # half the time, about 8 cycles a normal
    return _with_sign(x, bits << np.uint64(55)), s0, s1, s2, s3


@njit(**_OPTS)
def rng_next(st):
    """Next 64-bit output of the state array ``st``."""
    result, st[0], st[1], st[2], st[3] = next_state(st[0], st[1], st[2], st[3])
    return result


@njit(**_OPTS)
def rng_uniform(st):
    """Uniform double in the open interval (0, 1) from the state array ``st``."""
    u, st[0], st[1], st[2], st[3] = uniform_state(st[0], st[1], st[2], st[3])
    return u


@njit(**_OPTS)
def below(u, k):
    """The uniform integer in 0..k-1 (k < 2**53) of a uniform double ``u``."""
    return min(int(u * k), k - 1)


@njit(**_OPTS)
def rng_normal(st):
    """Standard normal from the state array ``st`` (:func:`normal_state`)."""
    z, st[0], st[1], st[2], st[3] = normal_state(st[0], st[1], st[2], st[3])
    return z


@njit(**_OPTS)
def rng_gamma(st, a):
    """Gamma(a, 1) from the state array ``st``, ``a > 0`` (Marsaglia & Tsang 2000: a
    squeeze on a cubed normal; below 1, Gamma(a + 1) times ``U^(1/a)``)."""
    boost = 1.0
    if a < 1.0:
        boost = rng_uniform(st) ** (1.0 / a)
        a += 1.0
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        z = rng_normal(st)
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        u = rng_uniform(st)
        if u < 1.0 - 0.0331 * z ** 4 or math.log(u) < 0.5 * z * z + d * (1.0 - v + math.log(v)):
            return d * v * boost


@njit(**_OPTS)
def rng_beta(st, a, b):
    """Beta(a, b) from the state array ``st``: ``G_a / (G_a + G_b)`` of two gammas."""
    x = rng_gamma(st, a)
    return x / (x + rng_gamma(st, b))


# --- four-lane SIMD vectors ---------------------------------------------------

class Vec4(types.Type):
    """Four lanes of float64: an LLVM ``<4 x double>`` value (see the module docstring)."""

    def __init__(self):
        super().__init__(name="Vec4(float64)")


F4 = Vec4()
_I32 = ir.IntType(32)
# numba compiles for these features (numba.core.codegen's choice)
_FEATURES = (config.CPU_FEATURES if config.CPU_FEATURES is not None
             else _llvm.get_host_cpu_features().flatten())
_AVX = "+avx" in _FEATURES.split(",")


@register_model(Vec4)
class _Vec4Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.DoubleType(), 4))


def _vptr(context, builder, aryty, ary, index, indexty):
    data = context.make_array(aryty)(context, builder, ary).data
    i = context.cast(builder, index, indexty, types.intp)
    return builder.bitcast(builder.gep(data, [i]), ir.VectorType(ir.DoubleType(), 4).as_pointer())


def _is_vector_array(arr, i):
    return (isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype == types.float64
            and isinstance(i, types.Integer))


@intrinsic
def vload(typingctx, arr, i):
    """The four float64 ``arr[i:i + 4]`` (a contiguous 1-d array) as one :data:`F4`."""
    if not _is_vector_array(arr, i):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(_vptr(context, builder, sig.args[0], args[0], args[1], sig.args[1]),
                            align=8)
    return F4(arr, i), codegen


@intrinsic
def vstore(typingctx, arr, i, v):
    """Store :data:`F4` ``v`` into ``arr[i:i + 4]`` (a contiguous 1-d array)."""
    if not (_is_vector_array(arr, i) and v == F4):
        return None

    def codegen(context, builder, sig, args):
        builder.store(args[2], _vptr(context, builder, sig.args[0], args[0], args[1],
                                     sig.args[1]), align=8)
        return context.get_dummy_value()
    return types.none(arr, i, v), codegen


@intrinsic
def vsplat(typingctx, x):
    """The float64 ``x`` in all four lanes."""
    if not isinstance(x, (types.Float, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.float64)
        vt = ir.VectorType(ir.DoubleType(), 4)
        v = builder.insert_element(ir.Constant(vt, ir.Undefined), v, ir.Constant(_I32, 0))
        return builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, 4), [0, 0, 0, 0]))
    return F4(x), codegen


@intrinsic
def vbroadcast(typingctx, arr, i):
    """The float64 ``arr[i]`` (a contiguous 1-d array, no wraparound of
    negative i) in all four lanes."""
    if not _is_vector_array(arr, i):
        return None

    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        i = context.cast(builder, args[1], sig.args[1], types.intp)
        x = builder.load(builder.gep(data, [i]), align=8)
        vt = ir.VectorType(ir.DoubleType(), 4)
        v = builder.insert_element(ir.Constant(vt, ir.Undefined), x, ir.Constant(_I32, 0))
        return builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, 4), [0, 0, 0, 0]))
    return F4(arr, i), codegen


@intrinsic
def vlane(typingctx, v, i):
    """Lane ``i`` of :data:`F4` ``v``."""
    if not (v == F4 and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        return builder.extract_element(args[0], context.cast(builder, args[1], sig.args[1],
                                                             types.intp))
    return types.float64(v, i), codegen


def _select_codegen(op):
    # numba's min(a, b) is ``b if b < a else a`` and max(a, b) ``b if b > a else a``:
    # x86's minpd(b, a) and maxpd(b, a) exactly (NaNs and signed zeros
    # included). Called as such, since LLVM turns a select stored back to
    # where one of its operands came from into a masked store, slow on AMD.
    name = {"<": "llvm.x86.avx.min.pd.256", ">": "llvm.x86.avx.max.pd.256"}[op]

    def codegen(context, builder, sig, args):
        a, b = args
        if not _AVX:
            return builder.select(builder.fcmp_ordered(op, b, a), b, a)
        vt = ir.VectorType(ir.DoubleType(), 4)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vt, [vt, vt]), name)
        return builder.call(fn, [b, a])
    return codegen


@intrinsic
def vmin(typingctx, a, b):
    """Lane-wise ``min(a, b)`` with numba's semantics (``b if b < a else a``)."""
    if not (a == F4 and b == F4):
        return None
    return F4(a, b), _select_codegen("<")


@intrinsic
def vmax(typingctx, a, b):
    """Lane-wise ``max(a, b)`` with numba's semantics (``b if b > a else a``)."""
    if not (a == F4 and b == F4):
        return None
    return F4(a, b), _select_codegen(">")


def _binop_template(op):
    class _Template(AbstractTemplate):
        def generic(self, args, kws):
            if len(args) == 2 and args[0] == F4 and args[1] == F4:
                return signature(F4, F4, F4)
    return infer_global(op)(_Template)


for _op, _emit in ((operator.add, "fadd"), (operator.sub, "fsub"), (operator.mul, "fmul")):
    _binop_template(_op)

    def _lower(context, builder, sig, args, _emit=_emit):
        return getattr(builder, _emit)(*args)

    lower_builtin(_op, F4, F4)(_lower)
