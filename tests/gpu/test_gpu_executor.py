"""Self-tests of the CPU executor: it must run correct kernels right and catch broken ones."""

from __future__ import annotations

import numpy as np
import pytest

from andrea_gpu.executor import (BuildError, KernelError, Module, OutOfBoundsError, RaceError,
                                 build, kernel_names)


def f32(*a):
    return np.asarray(a, dtype=np.float32)


# ------------------------------------------------------------------------- correct kernels
def test_barrier_makes_shared_memory_exchange_correct(selftest_module):
    x = np.arange(40, dtype=np.float32)
    y = np.zeros(40, dtype=np.float32)
    selftest_module.get_function("reverse_block")((1,), (64,), (x, y, np.int32(40)))
    np.testing.assert_array_equal(y, x[::-1])


def test_each_block_starts_with_fresh_shared_memory():
    # Unchecked build: the read before any write sees the 0xFF poison, never another block's.
    from tests.gpu.conftest import KERNELS
    mod = Module((KERNELS / "selftest.cu").read_text(), "selftest.cu", checked=False)
    clean = np.ones(5, dtype=np.int32)
    mod.get_function("shared_fresh_per_block")((5,), (64,), (clean,))
    np.testing.assert_array_equal(clean, 1)


def test_read_of_never_written_shared_memory_is_caught(selftest_module):
    with pytest.raises(KernelError, match=r"shared_fresh_per_block: read of never-written shared "
                                          r"memory at byte offset \d+ at selftest.cu:27 \(block "
                                          r"\(\d+,0,0\) thread \(\d+,0,0\) reads it, but no thread"):
        selftest_module.get_function("shared_fresh_per_block")((5,), (64,),
                                                               (np.ones(5, dtype=np.int32),))


def test_atomics_count_exactly(selftest_module):
    rng = np.random.default_rng(0)
    v = rng.integers(3, 13, 300).astype(np.int32)
    hist = np.zeros(16, dtype=np.int32)
    lo_hi = np.array([1 << 30, -(1 << 30)], dtype=np.int32)
    count = np.zeros(1, dtype=np.int32)
    selftest_module.get_function("histogram")((3,), (32,), (v, np.int32(v.size), hist, lo_hi,
                                                             count))
    np.testing.assert_array_equal(hist, np.bincount(v, minlength=16))
    assert lo_hi.tolist() == [v.min(), v.max()]
    assert count[0] == v.size


def test_dynamic_shared_memory_reduction(selftest_module):
    x = np.arange(1, 201, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    selftest_module.get_function("block_sum")((2,), (64,), (x, np.int32(200), out),
                                              shared_mem=64 * 4, check_order=False)
    assert out[0] == pytest.approx(200 * 201 / 2)


def test_results_land_only_after_every_schedule_agrees(selftest_module):
    x, y = f32(1, 2, 3), np.zeros(3, dtype=np.float32)
    k = selftest_module.get_function("reverse_block")
    k((1,), (32,), (x, y, np.int32(3)), orders=("shuffle", "reverse", "forward", "shuffle"))
    np.testing.assert_array_equal(y, f32(3, 2, 1))


# ------------------------------------------------------------------------- broken kernels
def test_missing_barrier_is_caught(selftest_module):
    x, y = np.arange(40, dtype=np.float32), np.zeros(40, dtype=np.float32)
    with pytest.raises(RaceError, match=r"reverse_block_racy: data race on shared memory at byte "
                                         r"offset \d+ at lines selftest.cu:18 and selftest.cu:19: "
                                         r"block \(0,0,0\) thread \(\d+,0,0\) writes it and block "
                                         r"\(0,0,0\) thread \(\d+,0,0\) reads it, with no "
                                         r"__syncthreads\(\) or atomic"):
        selftest_module.get_function("reverse_block_racy")((1,), (64,), (x, y, np.int32(40)))
    np.testing.assert_array_equal(y, 0)  # nothing copied back from a failed launch


def test_race_between_blocks_is_caught(selftest_module):
    y = np.zeros(6, dtype=np.float32)
    with pytest.raises(RaceError, match=r"cross_block_race: data race on argument 0 \(y\), element "):
        selftest_module.get_function("cross_block_race")((6,), (32,), (y, np.int32(6)))


def test_read_past_the_end_is_caught(selftest_module):
    x, y = np.zeros(64, dtype=np.float32), np.zeros(65, dtype=np.float32)
    with pytest.raises(OutOfBoundsError,
                       match=r"out-of-bounds access to argument 0 \(x\) at selftest.cu:\d+: "
                             r"byte offset 256 of a 256-byte buffer, by block"):
        selftest_module.get_function("copy_off_by_one")((2,), (32,), (x, y, np.int32(64)))


def test_read_before_the_start_is_caught(selftest_module):
    x, y = np.ones(8, dtype=np.float32), np.zeros(8, dtype=np.float32)
    with pytest.raises(OutOfBoundsError, match=r"argument 0 \(x\) at selftest.cu:\d+: byte offset -4 of"):
        selftest_module.get_function("read_before_start")((1,), (32,), (x, y, np.int32(8)))


def test_access_into_slack_is_caught_at_its_line(selftest_module):
    """y[5] of a 20-byte buffer lies before the 16-byte-aligned guard page (and ids[n] of the
    flush-start layout a page before it): the checker knows the argument's whole mapping."""
    y = np.zeros(5, dtype=np.float32)
    with pytest.raises(OutOfBoundsError, match=r"out-of-bounds access to argument 0 \(y\) at "
                                               r"selftest.cu:72: byte offset 20 of a 20-byte "
                                               r"buffer, by block \(0,0,0\) thread \(0,0,0\)"):
        selftest_module.get_function("write_past_end")((1,), (32,), (y, np.int32(5)))
    x, y = np.arange(5, dtype=np.float32), np.zeros(6, dtype=np.float32)
    with pytest.raises(OutOfBoundsError, match=r"argument 0 \(x\) at selftest.cu:61: byte "
                                               r"offset 20 of a 20-byte buffer"):
        selftest_module.get_function("copy_off_by_one")((1,), (32,), (x, y, np.int32(5)))


def test_write_into_slack_is_caught_by_canaries_without_the_checker():
    from tests.gpu.conftest import KERNELS
    mod = Module((KERNELS / "selftest.cu").read_text(), "selftest.cu", checked=False)
    y = np.zeros(5, dtype=np.float32)  # 20 bytes: y[5] lies before the 16-byte-aligned guard
    with pytest.raises(OutOfBoundsError, match=r"out-of-bounds write to argument 0 \(y\): byte "
                                               r"offset 20 of a 20-byte buffer"):
        mod.get_function("write_past_end")((1,), (32,), (y, np.int32(5)), orders=("forward",))


def test_a_write_to_a_const_input_is_caught(selftest_module):
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, dtype=np.float32)
    with pytest.raises(KernelError, match=r"kernel clobber_input wrote argument 0 \(x\), element "
                                          r"3, which is a const input"):
        selftest_module.get_function("clobber_input")((1,), (32,), (x, y, np.int32(8)))
    assert x.tolist() == list(range(8))


def test_divergent_barrier_is_caught(selftest_module):
    with pytest.raises(KernelError, match="divergent __syncthreads"):
        selftest_module.get_function("divergent_barrier")((1,), (32,), (np.zeros(32, np.float32),))


def test_exit_before_barrier_is_caught(selftest_module):
    with pytest.raises(KernelError, match="not reached by every thread"):
        selftest_module.get_function("early_exit_barrier")((1,), (32,),
                                                           (np.zeros(32, np.float32),
                                                            np.int32(20)))


def test_trap_is_reported_with_the_thread(selftest_module):
    with pytest.raises(KernelError, match=r"thread \(3,0,0\).*__trap\(\) at selftest.cu"):
        selftest_module.get_function("traps")((1,), (32,), (np.zeros(32, np.float32),))


def test_the_process_survives_and_runs_again_after_faults(selftest_module):
    test_read_past_the_end_is_caught(selftest_module)
    test_barrier_makes_shared_memory_exchange_correct(selftest_module)


# ------------------------------------------------------------------------- launch arguments
def test_arguments_are_checked_against_the_signature(selftest_module):
    k = selftest_module.get_function("reverse_block")
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError, match="takes 3 arguments, got 2"):
        k((1,), (32,), (x, x))
    with pytest.raises(TypeError, match=r"argument 2 must be a 32-bit int \(pass np.int32\)"):
        k((1,), (32,), (x, x, 4))
    with pytest.raises(TypeError, match=r"argument 0 must be a pointer"):
        k((1,), (32,), (1.0, x, np.int32(4)))
    with pytest.raises(ValueError, match="more than 1024"):
        k((1,), (2048,), (x, x, np.int32(4)))
    with pytest.raises(AttributeError, match="no __global__ function 'nope'"):
        selftest_module.get_function("nope")


def test_build_errors_carry_the_compiler_log():
    with pytest.raises(BuildError, match=r"broken.cu:2.*undeclared_thing"):
        Module('extern "C" __global__ void k(float *y) {\n  y[0] = undeclared_thing;\n}\n',
               "broken.cu")


def test_kernel_names_ignore_comments():
    src = '// __global__ void old(int x)\nextern "C" __global__ void __launch_bounds__(128) ' \
          'k1(int *a) {}\n/* __global__ void gone() */ extern "C" __global__ void k2() {}'
    assert kernel_names(src) == ["k1", "k2"]


def test_builds_are_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("ANDREA_GPU_CACHE", str(tmp_path))
    src = 'extern "C" __global__ void k(int *a) { a[threadIdx.x] = 1; }\n'
    first = build(src, "tiny.cu")
    assert first.parent == tmp_path
    stamp = first.stat().st_mtime_ns
    assert build(src, "tiny.cu") == first and first.stat().st_mtime_ns == stamp
    assert build(src.replace("= 1", "= 2"), "tiny.cu") != first
    assert len(list(tmp_path.glob("*.so"))) == 2


# ------------------------------------------------------------------------- happens-before races
def test_plain_scatter_add_races_even_with_integer_values(selftest_module):
    idx = np.array([0, 1, 2, 0], dtype=np.int32)  # thread 3 adds to the element thread 0 added to
    y = np.zeros(3, dtype=np.float32)
    with pytest.raises(RaceError, match=r"scatter_plain: data race on argument 2 \(y\), element "
                                        r"0 at line selftest.cu:\d+: block \(0,0,0\) thread "
                                        r"\(\d,0,0\) (reads|writes) it and block \(0,0,0\) "
                                        r"thread \(\d,0,0\) (reads|writes) it"):
        selftest_module.get_function("scatter_plain")((1,), (32,), (idx, np.int32(4), y))


def test_float_atomics_are_never_races_whatever_the_rounding(selftest_module):
    rng = np.random.default_rng(1)
    v = (rng.standard_normal(500) * 1e3).astype(np.float32)  # order-dependent float sums
    idx = rng.integers(0, 3, 500).astype(np.int32)
    y = np.zeros(3, dtype=np.float32)
    selftest_module.get_function("scatter_atomic")((4,), (64,), (v, idx, np.int32(500), y),
                                                   orders=("forward", "reverse", "shuffle"))
    np.testing.assert_allclose(y, np.bincount(idx, v, minlength=3), rtol=1e-4, atol=1e-2)


def test_unchecked_builds_skip_the_race_checker():
    from tests.gpu.conftest import KERNELS
    mod = Module((KERNELS / "selftest.cu").read_text(), "selftest.cu", checked=False)
    idx = np.array([0, 1, 2, 0], dtype=np.int32)
    y = np.zeros(3, dtype=np.float32)
    mod.get_function("scatter_plain")((1,), (32,), (idx, np.int32(4), y))
    assert y.tolist() == [2.0, 1.0, 1.0]


def test_neighbouring_bytes_are_different_locations(selftest_module):
    out = np.zeros(64, dtype=np.int32)
    selftest_module.get_function("byte_flags")((1,), (64,), (out,))
    assert out.tolist() == [(t + 1) % 64 for t in range(64)]
    with pytest.raises(RaceError, match=r"byte_flags_racy: data race on shared memory at byte "
                                        r"offset \d+ at lines selftest.cu:\d+ and selftest.cu:\d+"):
        selftest_module.get_function("byte_flags_racy")((1,), (64,), (np.zeros(64, np.int32),))


# ------------------------------------------------------------------------- warp-level primitives
def test_warp_shuffle_reduction(selftest_module):
    x = np.arange(1, 301, dtype=np.float32)
    for grid, block in ((1, 32), (3, 64), (2, 96)):
        out = np.zeros(1, dtype=np.float32)
        selftest_module.get_function("warp_sum")((grid,), (block,), (x, np.int32(300), out),
                                                 orders=("forward", "shuffle", "reverse"))
        assert out[0] == pytest.approx(300 * 301 / 2)


def test_syncwarp_orders_lanes_and_ballot_counts(selftest_module):
    out = np.zeros(64, dtype=np.int32)
    selftest_module.get_function("warp_exchange_shared")((1,), (64,), (out,),
                                                         orders=("shuffle", "reverse"))
    want = [3 * (t - t % 32 + (t % 32 + 1) % 32) + (1 << 5) for t in range(64)]
    assert out.tolist() == want
    with pytest.raises(RaceError, match=r"warp_exchange_racy: data race on shared memory"):
        selftest_module.get_function("warp_exchange_racy")((1,), (64,), (np.zeros(64, np.int32),))


def test_dynamic_shared_memory_without_a_size_is_explained():
    mod = Module('extern "C" __global__ void k(float *y) {\n    extern __shared__ float buf[];\n'
                 '    buf[threadIdx.x] = 1.0f;\n    y[threadIdx.x] = buf[threadIdx.x];\n}\n',
                 "dyn.cu")
    with pytest.raises(KernelError, match=r"null pointer was dereferenced \(the kernel uses extern "
                                          r"__shared__ memory, but the launch gives it none.* at "
                                          r"dyn.cu:3"):
        mod.get_function("k")((1,), (32,), (np.zeros(32, np.float32),))


def test_shared_memory_written_by_atomics_counts_as_written(selftest_module):
    out = np.zeros(64, dtype=np.int32)
    selftest_module.get_function("shared_atomic_counter")((1,), (64,), (out,))
    assert out.tolist() == [64] * 64


# ------------------------------------------------------------------------- never-written shared memory, by use
def test_a_never_written_shared_value_that_reaches_nothing_is_no_finding(selftest_module):
    """The slot past the last written one is read, but only looked at behind `t + 1 < n`
    (the shape of a batch loop's tail): no finding, and the results are right."""
    x = np.arange(1, 6, dtype=np.int32)
    out = np.full(8, -7, dtype=np.int32)
    selftest_module.get_function("uninit_unused")((1,), (32,), (x, out, np.int32(5)))
    assert out.tolist() == [2, 3, 4, 5, 0, -7, -7, -7]


@pytest.mark.parametrize("kernel", ["uninit_in_branch", "uninit_as_index", "uninit_in_atomic"])
def test_a_never_written_shared_value_that_is_used_is_a_finding(selftest_module, kernel):
    x = np.arange(1, 6, dtype=np.int32)
    out = np.zeros(8, dtype=np.int32)
    with pytest.raises(KernelError, match=rf"{kernel}: read of never-written shared memory at "
                                          r"byte offset \d+ at selftest\.cu:\d+ \(block \(0,0,0\) "
                                          r"thread \(4,0,0\) reads it"):
        selftest_module.get_function(kernel)((1,), (32,), (x, out, np.int32(5)))


# ------------------------------------------------------------------------- work: judged as on a GPU
SCAN = r"""
extern "C" __global__ void scan(const int *ids, int n, float *out, int rows) {
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < rows; e += blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int r = 0; r < n; ++r)
            if (ids[r] == e) acc += 1.0f;
        out[e] = acc;
    }
}
"""


def test_a_launch_is_stopped_by_its_work_not_the_executors_time():
    """Every memory access counts; past the GPU budget (gpu_limit_s at GPU_ACCESSES_PER_S) the
    launch stops with a finding at the student's line, whatever the CPU's speed."""
    from andrea_gpu.executor.launch import GPU_ACCESSES_PER_S
    k = Module(SCAN, "scan.cu").get_function("scan")
    ids = (np.arange(300) % 7).astype(np.int32)
    out = np.zeros(7, dtype=np.float32)
    k((1,), (32,), (ids, np.int32(300), out, np.int32(7)))
    assert out.tolist() == [43.0] * 6 + [42.0]
    assert 7 * 300 <= k.last_accesses <= 3 * 7 * 300 and not k.last_track_cut
    k.gpu_limit_s = 1000 / GPU_ACCESSES_PER_S   # 1000 accesses
    with pytest.raises(KernelError, match=r"kernel scan: stopped after 1001 memory accesses in one "
                                          r"launch \(by block \(0,0,0\) thread \(\d+,0,0\), at "
                                          r"scan\.cu:6\): about 1e-06 ms on a GPU"):
        k((1,), (32,), (ids, np.int32(300), out, np.int32(7)))


def test_a_large_launch_is_race_checked_up_to_a_budget(monkeypatch):
    """Past TRACK_BUDGET accesses a launch runs on untracked, in one schedule: a correct O(V d n)
    scan costs the executor seconds, not minutes; races show at the small sizes."""
    from andrea_gpu.executor import launch
    monkeypatch.setattr(launch, "TRACK_BUDGET", 5000)
    k = Module(SCAN, "scan.cu").get_function("scan")
    ids = (np.arange(3000) % 50).astype(np.int32)
    out = np.zeros(50, dtype=np.float32)
    k((2,), (32,), (ids, np.int32(3000), out, np.int32(50)))
    assert out.tolist() == [60.0] * 50
    assert k.last_track_cut and k.last_accesses >= 50 * 3000


#: Declarations production kernels write that NVRTC compiles and the executor once refused:
#: __grid_constant__ parameters, __maxnreg__, __align__ among a __shared__ array's specifiers
#: (an alignas there is an error), a kernel template beside the extern "C" entry point, and
#: __builtin_assume (refused as a reserved name the checker lacked).
QUALIFIERS = r"""
template <int BLOCK> __global__ void __launch_bounds__(BLOCK) scale_t(float* o) { o[0] *= BLOCK; }
template __global__ void scale_t<128>(float*);
extern "C" __global__ void __maxnreg__(64) quals(const float* __restrict__ in, float* out,
                                                  const __grid_constant__ int n) {
    __shared__ __align__(16) float tile[2][33];
    __builtin_assume(n <= 33);
    for (int i = threadIdx.x; i < n; i += blockDim.x) tile[0][i] = in[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = 2.0f * tile[0][n - 1 - i];
}
"""


def test_production_qualifiers_build_and_run():
    from andrea_gpu.nvrtc import NvrtcUnavailable, compile_source
    try:
        res = compile_source(QUALIFIERS, "quals.cu")
        assert res.ok, res.log
    except NvrtcUnavailable:
        pass
    assert kernel_names(QUALIFIERS) == ["quals"]
    from andrea_gpu.host import check_names
    check_names(QUALIFIERS, "quals.cu")   # no name only one compiler declares
    x, y = np.arange(20, dtype=np.float32), np.zeros(20, dtype=np.float32)
    Module(QUALIFIERS, "quals.cu").get_function("quals")((1,), (32,), (x, y, np.int32(20)))
    np.testing.assert_array_equal(y, 2 * x[::-1])


# ------------------------------------------------------------ warp primitives and their masks
WARP_MASKS = r"""
// Warp-aggregated atomics in a divergent branch: the lanes there merge with __activemask().
extern "C" __global__ void aggregated(const int* v, int* first_bad, int* count, int* lanes, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] < 0) {
        const unsigned active = __activemask();
        const int least = __reduce_min_sync(active, i);
        const unsigned bad = __ballot_sync(active, 1);
        const int leader = __ffs(active) - 1;
        if ((int)(threadIdx.x % 32) == leader) {
            atomicMin(first_bad, least);
            atomicAdd(count, __popc(bad));
        }
        lanes[i] = __shfl_sync(active, (int)(threadIdx.x % 32), leader);
    }
    __syncwarp();
    const unsigned peers = __match_any_sync(0xffffffffu, i < n ? v[i] : 0);
    if (i < n) atomicAdd(&lanes[n], __popc(peers) == 32);
}
// Half the warp shuffles in a branch, then the whole warp asks which lanes are active.
extern "C" __global__ void active_after_branch(unsigned* out) {
    int x = threadIdx.x;
    if (threadIdx.x % 32 < 16) x = __shfl_xor_sync(0x0000ffffu, x, 1);
    out[threadIdx.x] = __activemask() + 0u * x;
}
// A full mask in a branch half the warp skips, those lanes waiting at __syncthreads().
extern "C" __global__ void full_mask_in_branch(float* out) {
    float x = threadIdx.x;
    if (threadIdx.x % 32 < 16) x = __shfl_down_sync(0xffffffffu, x, 1);
    __syncthreads();
    out[threadIdx.x] = x;
}
// The lanes each mask names wait with the other mask: neither can go on.
extern "C" __global__ void mask_mismatch(float* out) {
    float x = threadIdx.x;
    if (threadIdx.x % 32 < 16) x = __shfl_xor_sync(0xffffffffu, x, 1);
    else x = __shfl_xor_sync(0xffff00ffu, x, 1);
    out[threadIdx.x] = x;
}
// One mask, two kinds of primitive: a reduction in a branch, a match outside it.
extern "C" __global__ void kind_clash(const int* v, int* out) {
    int r = 0;
    if (v[threadIdx.x] < 0) r = __reduce_min_sync(0xffffffffu, (int)threadIdx.x);
    out[threadIdx.x] = r + (int)__match_any_sync(0xffffffffu, v[threadIdx.x]);
}
"""


def _line(text: str) -> int:
    """The line of WARP_MASKS that holds `text`."""
    return next(k for k, line in enumerate(WARP_MASKS.split("\n"), 1) if text in line)


@pytest.fixture(scope="module")
def warp_masks():
    return Module(WARP_MASKS, "warp_masks.cu")


def test_primitives_in_a_divergent_branch_see_the_lanes_of_their_mask(warp_masks):
    n = 70
    v = np.ones(n, dtype=np.int32)
    bad = [3, 5, 40, 41, 69]
    v[bad] = -1
    first, count = np.full(1, 2**31 - 1, dtype=np.int32), np.zeros(1, dtype=np.int32)
    lanes = np.full(n + 1, -7, dtype=np.int32)
    lanes[n] = 0
    warp_masks.get_function("aggregated")((2,), (64,), (v, first, count, lanes, np.int32(n)))
    assert first[0] == 3 and count[0] == len(bad)
    # each bad lane's leader is the lowest bad lane of its warp (3, 8 = 40 % 32, 5 = 69 % 64)
    assert lanes[bad].tolist() == [3, 3, 8, 8, 5]
    # after the branch the whole warp matches again: warps 0 and 1 (ids all 1 but two lanes),
    # warp 2 (lanes 64-69 live, 70-95 compare 0): no warp has 32 equal values
    assert lanes[n] == 0


def test_activemask_after_a_branch_sees_the_warp_reconverged(warp_masks):
    """A guard, not a proof of 6eba57d: the runtime before it (activemask lanes let go in the
    same pass as the branch's group) gave 0xffffffff here too."""
    out = np.zeros(64, np.uint32)
    warp_masks.get_function("active_after_branch")((1,), (64,), (out,))
    assert out.tolist() == [0xFFFFFFFF] * 64


def test_a_full_mask_in_a_branch_skipped_by_half_the_warp_is_reported(warp_masks):
    line = _line("x = __shfl_down_sync(0xffffffffu, x, 1)")
    with pytest.raises(KernelError, match=rf"warp-level primitive at warp_masks\.cu:{line} is not "
                                          rf"reached by every live lane of the warp: .* waits at "
                                          rf"warp_masks\.cu:{line + 1}$"):
        warp_masks.get_function("full_mask_in_branch")((1,), (32,), (np.zeros(32, np.float32),))


def test_lanes_a_mask_names_waiting_with_another_mask_are_reported(warp_masks):
    a, b = _line("x = __shfl_xor_sync(0xffffffffu"), _line("x = __shfl_xor_sync(0xffff00ffu")
    with pytest.raises(KernelError, match=rf"warp-level primitive at warp_masks\.cu:({a}|{b}) is "
                                          rf"not reached by every lane its mask \(0x[0f]{{8}}\) "
                                          rf"names: .* waits at warp_masks\.cu:({a}|{b})$"):
        warp_masks.get_function("mask_mismatch")((1,), (32,), (np.zeros(32, np.float32),))


def test_one_mask_at_two_kinds_of_primitive_is_reported(warp_masks):
    v = np.ones(32, dtype=np.int32)
    v[4] = -1
    with pytest.raises(KernelError, match=r"lanes named in one mask \(0xffffffff\) wait at "
                                          r"different warp-level primitives: .*__reduce_\*_sync .*"
                                          r"__match_\*_sync|__match_\*_sync .*__reduce_\*_sync"):
        warp_masks.get_function("kind_clash")((1,), (32,), (v, np.zeros(32, np.int32)))


CG_TILES = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Each tile of 8 lanes sums its values with shfl_down, counts its odd values with ballot.
extern "C" __global__ void tile_sums(const float* x, float* sums, unsigned* odd) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    float v = x[block.thread_rank()];
    for (int o = 4; o > 0; o >>= 1) v += tile.shfl_down(v, o);
    const unsigned bits = tile.ballot(((int)x[block.thread_rank()]) & 1);
    tile.sync();
    if (tile.thread_rank() == 0) {
        sums[tile.meta_group_rank()] = v;
        odd[tile.meta_group_rank()] = bits;
    }
}
"""


def test_cooperative_groups_tiles_smaller_than_a_warp():
    from andrea_gpu.nvrtc import NvrtcUnavailable, compile_source
    from andrea_gpu.host import nvrtc_headers
    try:
        res = compile_source(CG_TILES, "tiles.cu", headers=nvrtc_headers())
        assert res.ok, res.log
    except NvrtcUnavailable:
        pass
    x = np.arange(64, dtype=np.float32)
    sums, odd = np.zeros(8, np.float32), np.zeros(8, np.uint32)
    Module(CG_TILES, "tiles.cu").get_function("tile_sums")((1,), (64,), (x, sums, odd))
    np.testing.assert_array_equal(sums, x.reshape(8, 8).sum(axis=1))
    assert odd.tolist() == [0b10101010] * 8
