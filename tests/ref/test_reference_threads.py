"""The reference's threaded forward (outputs of 4 MiB and more) gives the plain NumPy answer,
bit for bit, and keeps working in a forked child (which inherits the pool but not its threads)."""

import os

import numpy as np
import pytest

import andrea_ref as ref
from andrea_ref import embedding


def _problem(batch=3, t=700, d=768, vocab=600):
    rng = np.random.default_rng(5)
    tok = ref.init_table(vocab, d, rng)
    pos = ref.init_table(t, d, rng)
    ids = rng.integers(0, vocab, size=(batch, t))
    return ids, tok, pos


def test_big_outputs_take_the_threaded_path_and_equal_the_plain_formula(monkeypatch):
    ids, tok, pos = _problem()
    assert ids.size * tok.shape[1] * 4 >= embedding._PARALLEL_MIN_BYTES
    monkeypatch.setattr(embedding, "_num_threads", lambda nbytes: 3)  # 3 parts even on 1 core
    want = tok[ids] + pos[: ids.shape[-1]]
    assert np.array_equal(ref.embed(ids, tok, pos), want)
    assert np.array_equal(ref.lookup(tok, ids), tok[ids])
    buf = np.empty_like(want)
    assert ref.embed(ids, tok, pos, out=buf) is buf and np.array_equal(buf, want)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_runs_the_threaded_forward(monkeypatch):
    ids, tok, pos = _problem()
    monkeypatch.setattr(embedding, "_num_threads", lambda nbytes: 2)
    want = ref.embed(ids, tok, pos)  # the parent's pool now exists
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: no pool threads were inherited; a deadlock would hang here
        try:
            ok = np.array_equal(ref.embed(ids, tok, pos), want)
            os.write(w, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(w)
    try:
        import select
        ready, _, _ = select.select([r], [], [], 60)
        assert ready, "the forked child hung in embed"
        assert os.read(r, 1) == b"1"
    finally:
        os.close(r)
        if not ready:
            os.kill(pid, 9)
        os.waitpid(pid, 0)
