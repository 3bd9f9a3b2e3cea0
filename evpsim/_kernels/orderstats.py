"""Exact moments of order statistics (see :mod:`evpsim.truths.exact`)."""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS


@njit(**_OPTS)
def binom_pmf_all(B, f, s, out):
    """``out[a] = P(Bin(B, f) = a)`` for a = 0..B, with ``s = 1 - f``.

    ``s`` is passed separately so that it keeps full relative precision
    when ``f`` is close to one.
    """
    if f <= 0.0:
        out[:] = 0.0
        out[0] = 1.0
        return
    if s <= 0.0:
        out[:] = 0.0
        out[B] = 1.0
        return
    lf = math.log(f)
    ls = math.log(s)
    lgb = math.lgamma(B + 1.0)
    for a in range(B + 1):
        out[a] = math.exp(lgb - math.lgamma(a + 1.0) - math.lgamma(B - a + 1.0)
                          + a * lf + (B - a) * ls)


@njit(**_OPTS)
def _upper_tail(pmf, B, out):
    """``out[i] = P(C >= i)`` for i = 0..B from the pmf of C."""
    acc = 0.0
    for a in range(B, -1, -1):
        acc += pmf[a]
        out[a] = acc


@njit(**_OPTS)
def order_stat_tails(B, fs, ss):
    """``A[q, i-1] = P(X_(i:B) <= x_q)`` for each node with CDF ``fs[q]``."""
    K = fs.shape[0]
    A = np.empty((K, B))
    pmf = np.empty(B + 1)
    tail = np.empty(B + 1)
    for q in range(K):
        binom_pmf_all(B, fs[q], ss[q], pmf)
        _upper_tail(pmf, B, tail)
        for i in range(B):
            A[q, i] = tail[i + 1]
    return A


@njit(**_OPTS)
def order_stat_pair_block(B, fx, sx, fy, sy, wt, start, stop, out):
    """Add node pairs ``start..stop - 1``'s terms to half the covariance matrix.

    For node pairs ``x <= y`` with CDF values ``fx, fy`` (survival
    ``sx, sy``) and quadrature weights ``wt``, adds
    ``wt_k Cov(1[X_(i) <= x_k], 1[X_(j) <= y_k])`` to ``out[i, j]``; over
    all pairs, the covariance matrix is ``out + out.T``.
    """
    pmf_x = np.empty(B + 1)
    pmf_y = np.empty(B + 1)
    ax = np.empty(B + 1)
    ay = np.empty(B + 1)
    dpmf = np.empty(B + 1)
    dsf = np.empty(B + 2)
    run = np.empty(B + 1)
    for k in range(start, stop):
        w = wt[k]
        binom_pmf_all(B, fx[k], sx[k], pmf_x)
        binom_pmf_all(B, fy[k], sy[k], pmf_y)
        _upper_tail(pmf_x, B, ax)
        _upper_tail(pmf_y, B, ay)
        # D = C(y) - C(x) given C(x) = a is Bin(B - a, p), p = (S_x - S_y) / S_x
        if sx[k] > 0.0:
            p = (sx[k] - sy[k]) / sx[k]
            q = sy[k] / sx[k]
        else:
            p = 0.0
            q = 1.0
        dpmf[:] = 0.0
        dpmf[0] = 1.0
        run[:] = 0.0
        for a in range(B, -1, -1):
            m = B - a
            if m > 0:  # Bin(m - 1, p) -> Bin(m, p)
                for d in range(m, 0, -1):
                    dpmf[d] = q * dpmf[d] + p * dpmf[d - 1]
                dpmf[0] = q * dpmf[0]
            acc = 0.0
            dsf[m + 1] = 0.0
            for d in range(m, -1, -1):
                acc += dpmf[d]
                dsf[d] = acc
            ba = pmf_x[a]
            # run[j] accumulates P(C(x) >= a, C(y) >= j)
            for j in range(1, a + 1):
                run[j] += ba
            for j in range(a + 1, B + 1):
                run[j] += ba * dsf[j - a]
            if a >= 1:
                axa = ax[a]
                for j in range(1, B + 1):
                    out[a - 1, j - 1] += w * (run[j] - axa * ay[j])


@njit(**_OPTS)
def _transition(B, p, q, out):
    """``out[a0, a] = P(Bin(B - a0, p) = a - a0)``: the count process's step."""
    out[:, :] = 0.0
    dpmf = np.zeros(B + 1)
    dpmf[0] = 1.0
    for m in range(0, B + 1):
        if m > 0:
            for d in range(m, 0, -1):
                dpmf[d] = q * dpmf[d] + p * dpmf[d - 1]
            dpmf[0] = q * dpmf[0]
        a0 = B - m
        for d in range(m + 1):
            out[a0, a0 + d] = dpmf[d]


@njit(**_OPTS)
def order_stat_chain_sums(B, h, fs, ss):
    """Half of the order statistics' covariance matrix for ordered nodes.

    For ascending nodes ``x_1 < ... < x_K`` with weights ``h`` (CDF ``fs``,
    survival ``ss``) returns
    ``S[i, j] = sum_{k <= l} h_k h_l c_kl Cov(1[C_k >= i], 1[C_l >= j])``
    with ``c_kl = 1/2`` on the diagonal, so that the covariance matrix is
    ``S + S.T``. The count ``C(x)`` is a Markov chain in ``x``, so
    ``H_l(i, a) = sum_{k <= l} h_k c_kl P(C_k >= i, C_l = a)`` follows from
    ``H_{l-1}`` by one transition: O(K B^3) work instead of O(K^2 B^2).
    """
    K = fs.shape[0]
    H = np.zeros((B, B + 1))
    Hn = np.empty((B, B + 1))
    T = np.zeros((B, B))
    pi = np.empty((B + 1, B + 1))
    pmf = np.empty(B + 1)
    tail = np.empty(B + 1)
    cum_a = np.zeros(B)  # sum_{k <= l} h_k c_kl P(C_k >= i)
    prev_s = 1.0
    for l in range(K):  # noqa: E741 (the l of the formulas above)
        if prev_s > 0.0:
            p = (prev_s - ss[l]) / prev_s
            q = ss[l] / prev_s
        else:
            p, q = 0.0, 1.0
        _transition(B, p, q, pi)
        for i in range(B):
            for a in range(B + 1):
                acc = 0.0
                for a0 in range(a + 1):
                    acc += H[i, a0] * pi[a0, a]
                Hn[i, a] = acc
        for i in range(B):
            for a in range(B + 1):
                H[i, a] = Hn[i, a]
        binom_pmf_all(B, fs[l], ss[l], pmf)
        _upper_tail(pmf, B, tail)
        half = 0.5 * h[l]
        # node l enters its own diagonal term with half weight, later ones
        # with full weight: add one half before and one after using it
        for step in range(2):
            for i in range(B):
                for a in range(i + 1, B + 1):
                    H[i, a] += half * pmf[a]
                cum_a[i] += half * tail[i + 1]
            if step == 0:
                for i in range(B):
                    acc = 0.0
                    for j in range(B, 0, -1):  # sum over a >= j of H[i, a]
                        acc += H[i, j]
                        T[i, j - 1] += h[l] * (acc - cum_a[i] * tail[j])
        prev_s = ss[l]
    return T
