"""Speed of andrea_ref's embed / embed_backward against PyTorch's CPU embedding, side by side.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_reference.py [--quick]
        [--rounds N] [--batches 8 32]

Prints a markdown table: best (and median) time per call, ours/theirs, and bandwidth as a
fraction of a plain memory copy (np.copyto of a buffer of the same size) timed in the same run.
Targets (issue 13), at T=1024, V=8449, d_model=768, float32, B=8 and B=32:
  forward  <= 1.0x torch's best gather + position add (any variant, including one writing into
           a preallocated `out=`), and >= 0.8 of the copy bandwidth measured in the same run;
  backward <= 1.0x torch's best token-table scatter-add + position-gradient batch sum.

Fairness: the same inputs for everyone; every candidate is called twice before timing starts;
then, round after round, each candidate (in an order rotated every round) makes one untimed call
and `reps` timed ones, so all of them see the same machine over the whole run (other processes
come and go on a shared machine). Best and median are kept. torch runs with its default thread
count and so does ours (both printed, with the load average before and after and the BLAS kernel
threadpoolctl reports; these ops do not call BLAS, but OPENBLAS_* settings are printed anyway).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled
from andrea_ref import embedding as ref  # noqa: E402
from andrea_ref import fast  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("benchmarks need torch: pip install -e '.[bench]'  (torch==2.13.0, CPU)")

V, T, D = 8449, 1024, 768


def timeit(cands: dict, rounds: int, reps: int) -> dict:
    """{name: (best_s, median_s)}: candidates interleaved, one untimed call before each block."""
    names = list(cands)
    times = {name: [] for name in names}
    for fn in cands.values():
        fn(), fn()  # warm-up: caches, allocator, lazy init, thread pools
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = cands[name]
            fn()  # after another candidate ran: its caches and pages, not ours
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    return {name: (min(ts), float(np.median(ts))) for name, ts in times.items()}


def header() -> list[str]:
    lines = [
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"torch {torch.__version__}",
        f"machine: {platform.machine()}, {os.cpu_count()} logical CPUs "
        f"({len(os.sched_getaffinity(0))} usable); torch threads {torch.get_num_threads()} "
        f"(interop {torch.get_num_interop_threads()}); andrea_ref threads for big arrays "
        f"{ref._num_threads(1 << 30)}; andrea_ref.fast threads "
        f"{fast._threads(1 << 30) if fast.COMPILED else '-'}",
        ("andrea_ref.fast: compiled with numba " + __import__("numba").__version__
         if fast.COMPILED else "andrea_ref.fast: numba is not installed, its rows are left out "
         "(pip install -e '.[fast]')"),
    ]
    try:
        from threadpoolctl import threadpool_info
        pools = ", ".join(f"{p['internal_api']} {p.get('architecture') or ''} "
                          f"{p['num_threads']} threads".replace("  ", " ")
                          for p in threadpool_info())
        lines.append(f"threadpoolctl: {pools or 'no native pools loaded'} (BLAS is not used "
                     "by these ops)")
    except ImportError:
        lines.append("threadpoolctl: not installed (pip install -e '.[bench]')")
    lines.append("OPENBLAS_CORETYPE=" + str(os.environ.get("OPENBLAS_CORETYPE")) +
                 ", OPENBLAS_L2_SIZE=" + str(os.environ.get("OPENBLAS_L2_SIZE")))
    lines.append(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
                 "(other busy processes on these 2 cores skew every row, torch's most); "
                 f"this process's nice value {os.nice(0)} (every candidate runs at it)")
    return lines


def bench_batch(b: int, rounds: int, reps: int, rng: np.random.Generator):
    tok = ref.init_table(V, D, rng)
    pos = ref.init_table(T, D, rng)
    ids = rng.integers(0, V, size=(b, T))  # int64, as torch wants them
    grad = rng.standard_normal((b, T, D), dtype=np.float32)
    t_tok, t_pos, t_ids, t_grad = (torch.from_numpy(a) for a in (tok, pos, ids, grad))
    flat_ids = t_ids.reshape(-1)

    # Everyone computes the same thing (checked once here, not timed).
    want = ref.embed(ids, tok, pos)
    assert np.array_equal(want, (F.embedding(t_ids, t_tok) + t_pos).numpy())
    g_tok, g_pos = ref.embed_backward(ids, grad, V, T)
    w_tok = torch.ops.aten.embedding_dense_backward(t_grad, t_ids, V, -1, False)
    assert np.allclose(g_tok, w_tok.numpy(), atol=1e-4)
    assert np.allclose(g_pos, t_grad.sum(0).numpy(), atol=1e-4)
    if fast.COMPILED:  # the fast path is the reference, bit for bit
        assert fast.embed(ids, tok, pos).tobytes() == want.tobytes()
        f_tok, f_pos = fast.embed_backward(ids, grad, V, T)
        assert f_tok.tobytes() == g_tok.tobytes() and f_pos.tobytes() == g_pos.tobytes()

    out_pre = torch.empty(b, T, D)
    np_pre = np.empty((b, T, D), np.float32)

    def torch_index_select_out():  # no allocation: writes into a buffer kept across calls
        torch.index_select(t_tok, 0, flat_ids, out=out_pre.view(-1, D))
        out_pre.add_(t_pos)

    def torch_index_select_alloc():
        return torch.index_select(t_tok, 0, flat_ids).view(b, T, D).add_(t_pos)

    fwd = {
        "andrea_ref.embed": lambda: ref.embed(ids, tok, pos),
        "torch F.embedding(ids, tok) + pos": lambda: F.embedding(t_ids, t_tok) + t_pos,
        "torch index_select(...).add_(pos)": torch_index_select_alloc,
        "torch index_select(out=prealloc) + add_": torch_index_select_out,
        "andrea_ref.embed(out=prealloc)": lambda: ref.embed(ids, tok, pos, out=np_pre),
    }
    if fast.COMPILED:
        fwd["andrea_ref.fast.embed"] = lambda: fast.embed(ids, tok, pos)
        fwd["andrea_ref.fast.embed(out=prealloc)"] = lambda: fast.embed(ids, tok, pos, out=np_pre)

    w_param = t_tok.clone().requires_grad_(True)

    def torch_autograd():
        w_param.grad = None
        F.embedding(t_ids, w_param).backward(t_grad)
        return w_param.grad, t_grad.sum(0)

    def torch_dense_backward():
        return (torch.ops.aten.embedding_dense_backward(t_grad, t_ids, V, -1, False),
                t_grad.sum(0))

    def torch_index_add():
        return (torch.zeros(V, D).index_add_(0, flat_ids, t_grad.view(-1, D)), t_grad.sum(0))

    bwd = {
        "andrea_ref.embed_backward": lambda: ref.embed_backward(ids, grad, V, T),
        "torch aten.embedding_dense_backward + sum": torch_dense_backward,
        "torch autograd of F.embedding + sum": torch_autograd,
        "torch zeros.index_add_ + sum": torch_index_add,
    }
    if fast.COMPILED:
        bwd["andrea_ref.fast.embed_backward"] = lambda: fast.embed_backward(ids, grad, V, T)

    # The copy is cycled with the others, so it sees the same machine (and the same neighbours).
    src = np.ones((b, T, D), np.float32)
    dst = np.empty_like(src)
    res = timeit({"copy": lambda: np.copyto(dst, src), **fwd, **bwd}, rounds, reps)
    return ({n: res[n] for n in fwd}, {n: res[n] for n in bwd}, res["copy"], src.nbytes)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    ap.add_argument("--batches", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--rounds", type=int, default=None,
                    help="rounds of interleaved calls (default 10, 4 with --quick); more rounds "
                         "give a busy machine more chances of a quiet window for every row")
    args = ap.parse_args(argv)
    rounds, reps = (4, 2) if args.quick else (10, 2)
    if args.rounds is not None:
        if args.rounds < 1:
            ap.error(f"--rounds must be at least 1, got {args.rounds}")
        rounds = args.rounds
    rng = np.random.default_rng(0)

    print("\n".join(f"- {line}" for line in header()))
    print(f"- T={T}, V={V}, d_model={D}, float32; best of {rounds}x{reps} interleaved calls per row "
          f"(median in brackets); 'of copy' = time of np.copyto of the same bytes (B*T*d*4: "
          f"the forward output, the backward input) / time of the row\n")
    print("| op | B | implementation | ms/call (median) | ours/this | GB/s | of copy |")
    print("|---|---|---|---|---|---|---|")
    verdicts = []
    for b in args.batches:
        fwd, bwd, (copy, copy_med), nbytes = bench_batch(b, rounds, reps, rng)
        for op, res, target in (("forward", fwd, 1.0), ("backward", bwd, 1.0)):
            ours_name = next(iter(res))
            ours = res[ours_name][0]
            for name, (best, med) in res.items():
                print(f"| {op} | {b} | {name} | {best * 1e3:.2f} ({med * 1e3:.2f}) | "
                      f"{ours / best:.2f} | {nbytes / best / 1e9:.1f} | {copy / best:.2f} |")
            torch_rows = {n: r[0] for n, r in res.items() if n.startswith("torch")}
            best_name = min(torch_rows, key=torch_rows.get)
            paths = {"the plain reference (andrea_ref)":
                     {n: r[0] for n, r in res.items()
                      if n.startswith("andrea_ref") and not n.startswith("andrea_ref.fast")},
                     "the fast path (andrea_ref.fast)":
                     {n: r[0] for n, r in res.items() if n.startswith("andrea_ref.fast")}}
            for label, rows in paths.items():
                if not rows:
                    continue
                ours_best = min(rows.values())
                ratio = ours_best / torch_rows[best_name]
                verdicts.append(f"- {op} B={b}, {label}: best path / torch's best path = "
                                f"{ratio:.2f} (target <= {target}, "
                                f"{'met' if ratio <= target else 'NOT met'}; best torch: "
                                f"{best_name})")
                if op == "forward":
                    frac = copy / ours_best
                    verdicts.append(f"  - its best forward path reaches {frac:.2f} of the copy "
                                    f"bandwidth (target >= 0.8, "
                                    f"{'met' if frac >= 0.8 else 'NOT met'})")
                alloc = {n: t for n, t in torch_rows.items() if "prealloc" not in n}
                mine_alloc = {n: t for n, t in rows.items() if "prealloc" not in n}
                if len(alloc) < len(torch_rows) and mine_alloc:
                    best_alloc = min(alloc, key=alloc.get)
                    verdicts.append(f"  - like for like (both allocate their result): "
                                    f"{min(mine_alloc.values()) / alloc[best_alloc]:.2f} "
                                    f"against {best_alloc}")
                mine_pre = {n: t for n, t in rows.items() if "prealloc" in n}
                pre = {n: t for n, t in torch_rows.items() if "prealloc" in n}
                if mine_pre and pre:
                    best_pre = min(pre, key=pre.get)
                    verdicts.append(f"  - like for like (both write into a reused buffer): "
                                    f"{min(mine_pre.values()) / pre[best_pre]:.2f} "
                                    f"against {best_pre}")
        print(f"| copy | {b} | np.copyto, {nbytes / 2**20:.0f} MiB | {copy * 1e3:.2f} "
              f"({copy_med * 1e3:.2f}) | | {nbytes / copy / 1e9:.1f} | 1.00 |")
    print()
    print("\n".join(verdicts))
    print(f"- load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
