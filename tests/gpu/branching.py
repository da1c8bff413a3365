"""What the executor makes of a hostile kernel whose embed_backward has two branches: a racy
scatter-add where it believes it runs on a GPU, atomics elsewhere (tests/attacks/kernels/*.cu).
The grader must judge the branch a GPU runs: the race shows as a finding or a wrong gradient."""

from __future__ import annotations

import numpy as np

from andrea_gpu.executor import KernelError


def gpu_branch_finding(sub) -> str | None:
    """The finding (a KernelError's text or "wrong gradient") of three embed_backward calls, one
    per launch shape (grid 1, one block; then several blocks), on 2 x 20 ids all 0; None when
    every call gave the right gradients, i.e. the executor ran the atomic branch."""
    found = None
    try:
        for _ in range(3):
            gt, gp = sub.embed_backward(np.zeros((2, 20), np.int64),
                                        np.ones((2, 20, 3), np.float32), 2, 20)
            if not (np.all(gp == 2) and np.all(gt[0] == 40)):
                found = "wrong gradient"
    except KernelError as exc:
        found = str(exc)
    return found
