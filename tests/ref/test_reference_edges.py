"""Edges of andrea_ref that the contract leaves open, pinned down so they stay deliberate."""

import math

import numpy as np
import pytest

import andrea_ref as ref


def test_cosine_of_nan_is_nan_not_clipped():
    assert math.isnan(ref.cosine_similarity([np.nan, 1.0], [1.0, 1.0]))


def test_norm_neither_overflows_nor_underflows():
    assert ref.norm(np.array([3e200, 4e200])) == pytest.approx(5e200)
    assert ref.norm(np.array([3e-200, 4e-200])) == pytest.approx(5e-200)


def test_embed_out_buffer_is_used_and_checked():
    tok = ref.init_table(10, 4, np.random.default_rng(0))
    pos = ref.init_table(3, 4, np.random.default_rng(1))
    ids = np.array([[1, 2, 3], [0, 9, 9]])
    buf = np.empty((2, 3, 4), np.float32)
    assert ref.embed(ids, tok, pos, out=buf) is buf
    np.testing.assert_array_equal(buf, tok[ids] + pos)
    frozen = np.empty((2, 3, 4), np.float32)
    frozen.flags.writeable = False
    for bad in (np.empty((2, 3, 5), np.float32), np.empty((2, 3, 4)),
                np.empty((4, 3, 2), np.float32).T, frozen):
        with pytest.raises(ValueError, match="out must be"):
            ref.embed(ids, tok, pos, out=bad)


def test_tables_of_different_dtypes_are_a_type_error():
    with pytest.raises(TypeError, match="float32 but position_table is float64"):
        ref.embed(np.array([0]), np.zeros((2, 3), np.float32), np.zeros((2, 3)))


def test_backward_gradients_do_not_alias_the_input():
    ids = np.array([0, 0, 1])
    grad = np.ones((3, 2), np.float32)
    g_tok, g_pos = ref.embed_backward(ids, grad, 4, 5)
    g_tok += 1
    assert grad.sum() == 6 and g_pos[:3].sum() == 6


@pytest.mark.parametrize("call, exc, match", [
    (lambda: ref.sinusoidal_encoding([0, 1], 3), ValueError, "even"),
    (lambda: ref.sinusoidal_encoding([0.5], 4), TypeError, "integers"),
    (lambda: ref.sinusoidal_encoding([-1], 4), ValueError, ">= 0"),
    (lambda: ref.rope(np.zeros((2, 4)), [0]), ValueError, "T = 2"),
    (lambda: ref.rope(np.zeros((2, 4), np.int64), [0, 1]), TypeError, "floats"),
    (lambda: ref.init_table(3, 4, 7), TypeError, "Generator"),
])
def test_encoding_and_init_argument_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
