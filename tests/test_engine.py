"""The engine kit: options, stream layout, runner and worker processes."""

import os

import numpy as np
import pytest

import evpsim
from evpsim import streams
from evpsim._kernels import moments as K
from evpsim.engine.montecarlo import Job, MonteCarlo, run


def _family(first, count):
    return first, first + count  # [start, stop)


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1]


def test_stream_families_of_one_experiment_never_overlap():
    """Searches of every B and every Monte Carlo truth get disjoint streams."""
    chunks = streams.MAX_CHUNKS
    families = [("search", B, _family(streams.search_streams(B), chunks))
                for B in (2, 3, 50, 2**20, 2**30 - 1)]
    families += [("truth", k, _family(streams.truth_streams(k), chunks))
                 for k in (0, 1, 2, streams.MAX_TRUTH_STREAMS - 1)]
    families += [("bias", 0, _family(streams.bias_streams(), chunks))]
    for i, a in enumerate(families):
        assert a[2][1] <= 2**63, a
        for b in families[i + 1:]:
            assert not _overlap(a[2], b[2]), (a, b)


def test_consecutive_search_sizes_do_not_share_streams():
    for B in range(2, 200):
        assert streams.search_streams(B + 1) - streams.search_streams(B) >= streams.MAX_CHUNKS


@pytest.mark.parametrize("call, message", [
    (lambda: streams.search_streams(2**30), "B must be below"),
    (lambda: streams.truth_streams(1024), "stream must be at most 1,023"),
    (lambda: streams.truth_streams(-1), "stream must be at least 0"),
])
def test_stream_layout_limits(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_options_are_validated_once():
    opts = MonteCarlo(10_000.0, seed=3, chunk_size=1000, workers=2)
    assert (opts.replicates, opts.nchunks, opts.workers) == (10_000, 10, 2)
    with pytest.raises(ValueError, match="chunks, more than"):
        MonteCarlo(10**15, chunk_size=1)


def test_spans_cover_every_chunk_once_in_order():
    opts = MonteCarlo(10_001, chunk_size=1000)
    spans = list(opts.spans(stream0=7, batch_chunks=4))
    assert [s.chunk0 for s in spans] == [0, 4, 8]
    assert sum(s.nchunks for s in spans) == opts.nchunks == 11
    assert {s.stream0 for s in spans} == {7}


def _job(B=12):
    truth = evpsim.make_truth("tang-big")
    ws = evpsim.estimator_weights("V", B)
    theta = truth.theta(np.arange(1, B + 1))
    controls = -np.ones(B, dtype=np.int64)
    return Job(K.bias_lstat_chunks, (B, truth.sampler, np.ascontiguousarray(ws.T), theta,
                                     controls))


def test_result_does_not_depend_on_batching_or_workers():
    opts = MonteCarlo(20_000, seed=3, chunk_size=1000)
    job = _job()
    (one,) = run([job], opts, "test", batch_chunks=20)
    (split,) = run([job], opts, "test", batch_chunks=3)
    (procs,) = run([job], MonteCarlo(20_000, 3, 1000, workers=2), "test", batch_chunks=4)
    np.testing.assert_array_equal(one, split)
    np.testing.assert_array_equal(one, procs)


@pytest.mark.slow  # each worker compiles the user's kernel (about 20 s)
def test_a_user_estimator_runs_in_worker_processes_with_the_same_numbers():
    def top_two_mean(xs, n):
        return 0.5 * (xs[-1] + xs[-2]) if n > 1 else xs.mean()

    evpsim.register_estimator("top2", func=top_two_mean)
    try:
        kw = dict(estimators="V,top2", method="mc", replicates=8192, seed=5, chunk_size=512)
        inproc = evpsim.bias("normal", 8, **kw)
        procs = evpsim.bias("normal", 8, workers=2, **kw)
    finally:
        evpsim.unregister_estimator("top2")
    for q in ("mean", "variance", "mse"):
        np.testing.assert_array_equal(inproc[q].values, procs[q].values)


@pytest.mark.parametrize("B", [2, 13, K.MAX_B_FOUR])
def test_four_searches_at_a_time_equal_one_at_a_time(B):
    # the kernel the bias battery runs up to MAX_B_FOUR, and the one it runs
    # beyond, give the same sums bit for bit (a U control on the V rows)
    truth = evpsim.make_truth("tang-big")
    ns = np.arange(1, B + 1)
    ws = np.concatenate([evpsim.estimator_weights("V", B), evpsim.estimator_weights("U", B)])
    theta = np.tile(truth.theta(ns), 2)
    controls = np.concatenate([B + np.arange(B), -np.ones(B, dtype=np.int64)])
    args = (B, truth.sampler, np.ascontiguousarray(ws.T), theta, controls)
    opts = MonteCarlo(4_001, seed=2, chunk_size=1000)  # a last chunk of one search
    four, = run([Job(K.bias_lstat_chunks, args)], opts, "test")
    one, = run([Job(K.bias_lstat_chunks_scalar, args)], opts, "test")
    np.testing.assert_array_equal(four, one)
    assert K.bias_lstat_kernel(B) is K.bias_lstat_chunks
    assert K.bias_lstat_kernel(K.MAX_B_FOUR + 1) is K.bias_lstat_chunks_scalar


def test_jobs_pickle_their_kernel_by_name():
    import pickle

    job = _job()
    again = pickle.loads(pickle.dumps(job))
    assert again.kernel is K.bias_lstat_chunks


@pytest.mark.parametrize("n", [1, 2, 3, 31, 64, 65, 100, 1000])
def test_kernel_sorts_agree_with_numpy(n):
    # the sorting network (n <= 64) and the heapsort beyond it, ties included
    from evpsim._kernels.sampling import sort_inplace, sort_sample, sort_workspace

    x = np.random.default_rng(n).normal(size=n)
    x[::5] = x[0]
    a, b = x.copy(), x.copy()
    sort_inplace(a)
    sort_sample(b, *sort_workspace(n)[::-1])
    assert np.array_equal(a, np.sort(x)) and np.array_equal(b, np.sort(x))


def test_threads_split_work_in_order():
    from evpsim.engine.threads import map_threads, ranges

    assert map_threads(lambda v: v * v, range(50)) == [v * v for v in range(50)]
    cuts = ranges(7)
    assert cuts[0][0] == 0 and cuts[-1][1] == 7
    assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))


def test_shutdown_wakes_a_pool_thread_the_exit_hook_does_not_know():
    # a Ctrl-C between a thread's start and its registration leaves it unknown to
    # concurrent.futures' exit hook; the interpreter then waited for it for ever.
    # shutdown() wakes every thread of the pool's queue, known or not.
    from concurrent.futures import thread as cf_thread

    import numba

    from evpsim import threads

    if numba.get_num_threads() < 2:
        pytest.skip("one numba thread: no pool")
    assert threads.map_threads(lambda v: v + 1, range(8)) == list(range(1, 9))
    pool = threads._pool()
    workers = list(pool._threads)
    for t in workers:  # what the interrupted registration leaves behind
        cf_thread._threads_queues.pop(t, None)
    threads.shutdown()
    for t in workers:
        t.join(timeout=10)
        assert not t.is_alive()
    assert threads.map_threads(lambda v: v * 2, range(8)) == [v * 2 for v in range(8)]


@pytest.mark.slow  # two fresh processes compiling the false-conclusion kernels
def test_a_user_function_leaves_the_kernel_cache_readable(tmp_path):
    # a kernel cached on a user's function would pickle the function into
    # the cache index; a process that cannot import its module must still
    # run the same kernel
    import subprocess
    import sys

    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "userest.py").write_text(
        "def top(xs, n):\n    return xs[xs.shape[0] - 1]\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    run = "evpsim.falseconc('normal', 10, estimators={}, replicates=5000, truth_replicates=5000)"
    with_user = (f"import sys, evpsim; sys.path.insert(0, {str(tmp_path / 'mod')!r}); "
                 "import userest; evpsim.register_estimator('TOP', func=userest.top); "
                 + run.format("'V,TOP'"))
    for script in (with_user, "import evpsim; " + run.format("'V'")):
        subprocess.run([sys.executable, "-c", script], env=env, check=True, cwd=tmp_path,
                       capture_output=True)
