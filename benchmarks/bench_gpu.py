"""Speed of andrea_gpu's kernels: achieved bandwidth on a GPU, executor throughput on the CPU.

    python benchmarks/bench_gpu.py [--backend cuda|cpu] [--reps N]

On a CUDA device (the default when CuPy sees one), at T=1024, V=8449, d_model=768, float32 and
B in {1, 8, 32}: the forward (gather + position add) and the backward (deterministic: sort +
segmented sum + position sum; and the atomicAdd variant), timed with CUDA events over device
arrays, as GB/s of the bytes each must move, next to a device-to-device copy of the forward's
output size measured in the same run, and the ratio to it. Bytes counted:
  forward   n*4 (ids) + n*d*4 (token rows read) + T*d*4 (position rows read) + n*d*4 (written)
  backward  n*d*4 (grad_out read) + V*d*4 (token gradient zero-filled) + u*d*4 (rows written,
            u distinct ids) + T*d*4 (position gradient written) + n*d*4 (grad_out read again)
  copy      2 * n*d*4 (read + write)
The issue's target is a forward at >= 80 % of the copy's bandwidth.

On the CPU executor (no GPU, or --backend cpu): elements (ids x d_model) per second of the
forward and backward at small sizes, next to andrea_ref on the same inputs, and the ratio.
The executor runs each launch in several schedules with guard pages: it is a checker, not a
fast path. Ratios, not asserts: nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
import andrea_gpu  # noqa: E402
import andrea_ref  # noqa: E402

V, T, D = 8449, 1024, 768


def _cuda_time(fn, reps: int) -> float:
    """Best-of-3 mean seconds per call of fn() over `reps` calls, timed with CUDA events."""
    import cupy
    fn()
    cupy.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(3):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        stop.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(start, stop) / 1e3 / reps)
    return best


def bench_cuda(reps: int) -> None:
    import cupy
    eng = andrea_gpu.engine("cuda")
    rng = np.random.default_rng(0)
    tok = cupy.asarray(andrea_ref.init_table(V, D, rng))
    pos = cupy.asarray(andrea_ref.init_table(T, D, rng))
    dev = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    print(f"# andrea_gpu on {dev['name'].decode()}, CuPy {cupy.__version__}, "
          f"T={T} V={V} d_model={D} float32, {reps} reps, best of 3\n")
    print("| B | kernel | time (us) | GB/s | copy GB/s | ratio to copy |")
    print("|---|---|---:|---:|---:|---:|")
    for b in (1, 8, 32):
        n = b * T
        ids_np = rng.integers(0, V, n)
        ids = cupy.asarray(ids_np.astype(np.int32))
        grad = cupy.asarray(rng.standard_normal((n, D), dtype=np.float32))
        src = cupy.empty((n, D), dtype=np.float32)
        dst = cupy.empty_like(src)
        t_copy = _cuda_time(lambda: cupy.copyto(dst, src), reps)
        copy_gbs = 2 * src.nbytes / t_copy / 1e9
        rows = [
            ("forward", lambda: eng.forward_device("andrea_embed_forward", ids, tok, pos, T),
             n * 4 + 2 * n * D * 4 + T * D * 4),
        ]
        bwd_bytes = 2 * n * D * 4 + V * D * 4 + len(np.unique(ids_np)) * D * 4 + T * D * 4
        for det in (True, False):
            rows.append((f"backward ({'sorted' if det else 'atomic'})",
                         lambda det=det: eng.backward_device(ids, grad, V, T, T, det), bwd_bytes))
        for name, fn, nbytes in rows:
            t = _cuda_time(fn, reps)
            gbs = nbytes / t / 1e9
            print(f"| {b} | {name} | {t * 1e6:.1f} | {gbs:.0f} | {copy_gbs:.0f} | "
                  f"{gbs / copy_gbs:.2f} |")


def _cpu_time(fn, reps: int) -> float:
    fn()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def bench_cpu(reps: int) -> None:
    from andrea_gpu.executor import default_orders
    os.environ["ANDREA_GPU_BACKEND"] = "cpu"
    rng = np.random.default_rng(0)
    v, t, d = 512, 64, 64
    tok = andrea_ref.init_table(v, d, rng)
    pos = andrea_ref.init_table(t, d, rng)
    print(f"# andrea_gpu on the CPU executor (schedules per launch: "
          f"{', '.join(default_orders())}), V={v} T={t} d_model={d} float32\n")
    print("| B | function | executor elements/s | andrea_ref elements/s | executor / ref |")
    print("|---|---|---:|---:|---:|")
    for b in (1, 8):
        ids = rng.integers(0, v, (b, t))
        grad = rng.standard_normal((b, t, d), dtype=np.float32)
        elems = ids.size * d
        for name, ours, ref in (
            ("embed", lambda: andrea_gpu.embed(ids, tok, pos), lambda: andrea_ref.embed(ids, tok, pos)),
            ("embed_backward", lambda: andrea_gpu.embed_backward(ids, grad, v, t),
             lambda: andrea_ref.embed_backward(ids, grad, v, t)),
        ):
            eo, er = elems / _cpu_time(ours, reps), elems / _cpu_time(ref, reps * 20)
            print(f"| {b} | {name} | {eo:.3g} | {er:.3g} | {eo / er:.2g} |")


SWITCH_KERNEL = r"""
extern "C" __global__ void bench_barriers(float *out, int rounds) {
    for (int r = 0; r < 2 * rounds; ++r) __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)rounds;
}
extern "C" __global__ void bench_no_barrier(const float *x, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 2.0f * x[i];
}
"""


def bench_switch(reps: int) -> None:
    """ns per fiber switch (a barrier-heavy kernel) and elements/s of a barrier-free kernel.

    One schedule per launch, so the time is the executor's own: bench_barriers makes every
    thread of 4 blocks x 128 threads pass 2 * rounds barriers and do nothing else; the time per barrier crossing
    of one thread includes the scheduler's bookkeeping (swapcontext: two switches, out to the
    scheduler and back; asm: one, fibers hand over to each other);
    bench_no_barrier doubles n floats. Rows: the assembly switch against swapcontext (the
    previous design, a sigprocmask system call per switch) measured in the same run, each
    without the race checker ("unchecked") and with it ("checked", what grading uses).
    """
    from andrea_gpu.executor import Module
    blocks, threads, rounds = 4, 128, 200
    crossings = blocks * threads * 2 * rounds
    n = 1 << 16
    rows = {}
    for switch in ("ucontext", "asm"):
        for checked in (False, True):
            mod = Module(SWITCH_KERNEL, "bench_switch.cu", checked=checked, switch=switch)
            out = np.zeros(blocks * threads, dtype=np.float32)
            k = mod.get_function("bench_barriers")
            t = _cpu_time(lambda: k((blocks,), (threads,), (out, np.int32(rounds)),
                                    orders=("forward",), check_order=False), reps)
            x, y = np.ones(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
            k2 = mod.get_function("bench_no_barrier")
            t2 = _cpu_time(lambda: k2((8,), (128,), (x, y, np.int32(n)), orders=("forward",),
                                      check_order=False), reps)
            rows[switch, checked] = (t / crossings * 1e9, n / t2)
    print(f"| switch | race checker | ns per barrier crossing ({blocks}x{threads} threads, "
          f"{2 * rounds} barriers each) | barrier-free kernel elements/s (n={n}) |")
    print("|---|---|---:|---:|")
    for (switch, checked), (ns, eps) in rows.items():
        print(f"| {switch} | {'on' if checked else 'off'} | {ns:.1f} | {eps:.3g} |")
    for checked in (False, True):
        ratio = rows["ucontext", checked][0] / rows["asm", checked][0]
        print(f"\nbarrier crossing speed-up, asm over ucontext, checker "
              f"{'on' if checked else 'off'}: "
              f"{ratio:.1f}x")
    print()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=("cuda", "cpu"), default=None,
                    help="default: cuda when CuPy sees a device, else cpu")
    ap.add_argument("--reps", type=int, default=None, help="calls per timing (default 50 on "
                                                           "cuda, 3 on cpu)")
    args = ap.parse_args(argv)
    backend = args.backend or ("cuda" if andrea_gpu.cuda_available() else "cpu")
    if backend == "cuda":
        if not andrea_gpu.cuda_available():
            sys.exit("--backend cuda: CuPy sees no CUDA device")
        bench_cuda(args.reps or 50)
    else:
        bench_switch(args.reps or 3)
        bench_cpu(args.reps or 3)


if __name__ == "__main__":
    main()
