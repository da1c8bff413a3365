"""The child's side of ``andrea_gpu.sanitizer``: one short exercise of a kernel submission.

Run under compute-sanitizer by ``sanitizer.run``, it launches every entry point of the
submission on the device, every test launch shape, with good ids and with out-of-range ones
(errors are expected and ignored here: the sanitizer's report is what counts).

    python -m andrea_gpu.exercise student.cu contract.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from andrea_runtime import validate
from andrea_runtime.kernel_contract import KernelContract

from . import host
from .backend import get_backend
from .nvrtc import OPTIONS
from .sanitizer import LINE_INFO


def exercise(path: str, contract_file: str) -> None:
    """The child's side: launch every entry point of `path` on the device, every test shape,
    with good ids and with out-of-range ones (errors are expected and ignored here)."""
    import numpy as np

    contract = KernelContract.from_data(json.loads(Path(contract_file).read_text()))
    text, name = host.read_source(path)
    be = get_backend("cuda")
    import cupy

    module = cupy.RawModule(code=text + contract.check_source(), options=(*OPTIONS, LINE_INFO),
                            backend="nvrtc")
    sub = host.KernelHost(path, module, be, contract, validate)
    rng = np.random.default_rng(0)
    rows, d, t = 37, 70, 9
    tab = rng.standard_normal((rows, d)).astype(np.float32)
    pos = rng.standard_normal((t, d)).astype(np.float32)
    ids = rng.integers(0, rows, (3, t))
    grad = rng.standard_normal((3, t, d)).astype(np.float32)
    bad = ids.copy()
    bad[1, 2] = rows
    for _ in contract.test_shapes:
        for call in (lambda: sub.lookup(tab, ids), lambda: sub.embed(ids, tab, pos),
                     lambda: sub.embed_backward(ids, grad, rows, t),
                     lambda: sub.lookup(tab, bad), lambda: sub.embed(bad, tab, pos),
                     lambda: sub.embed_backward(bad, grad, rows, t)):
            try:
                call()
            except Exception:  # noqa: BLE001 - the sanitizer's report is what counts here
                pass
    cupy.cuda.Device().synchronize()


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 2:
        exercise(args[0], args[1])
        return 0
    print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
