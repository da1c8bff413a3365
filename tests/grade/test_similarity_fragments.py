"""The fragments two submissions share (similarity.matched_fragments): the winnowed fingerprints
behind the similarity figure, located as line ranges on both sides. Renamed, reformatted,
reordered copies are found at the right lines; independent code and boilerplate are not."""

from __future__ import annotations

import textwrap

from graders.grade import similarity as S

ORIGINAL = textwrap.dedent('''\
    import numpy as np


    def lookup(table, token_ids):
        """Rows of the table."""
        ids = np.asarray(token_ids)
        if ids.dtype.kind not in "iu":
            raise TypeError("token ids must be integers")
        if ids.size and (ids.min() < 0 or ids.max() >= len(table)):
            raise IndexError("token id out of range")
        return np.take(table, ids, axis=0)


    def embed_backward(token_ids, grad_out, vocab_size, context_length):
        ids = np.asarray(token_ids)
        d = grad_out.shape[-1]
        grad_token = np.zeros((vocab_size, d), dtype=np.float32)
        np.add.at(grad_token, ids.reshape(-1), grad_out.reshape(-1, d))
        grad_position = np.zeros((context_length, d), dtype=np.float32)
        grad_position[: ids.shape[-1]] = grad_out.reshape(-1, ids.shape[-1], d).sum(axis=0)
        return grad_token, grad_position


    def norm(v):
        v = np.asarray(v, dtype=np.float64)
        if v.ndim != 1:
            raise ValueError("v must be a 1-D vector")
        return float(np.sqrt(np.sum(v * v)))
''')

# The same code: names changed, comments added, the two last functions swapped, blank lines
# moved, so every line number differs.
DISGUISED = textwrap.dedent('''\
    # my homework
    import numpy as np

    def norm(vec):
        vec = np.asarray(vec, dtype=np.float64)
        if vec.ndim != 1:
            raise ValueError("v must be a 1-D vector")   # as asked
        return float(np.sqrt(np.sum(vec * vec)))

    def lookup(tab, toks):
        arr = np.asarray(toks)
        if arr.dtype.kind not in "iu":
            raise TypeError("token ids must be integers")
        if arr.size and (arr.min() < 0 or arr.max() >= len(tab)):
            raise IndexError("token id out of range")
        return np.take(tab, arr, axis=0)

    def embed_backward(token_ids, g, vocab, ctx):
        i = np.asarray(token_ids)
        dm = g.shape[-1]
        gt = np.zeros((vocab, dm), dtype=np.float32)
        np.add.at(gt, i.reshape(-1), g.reshape(-1, dm))
        gp = np.zeros((ctx, dm), dtype=np.float32)
        gp[: i.shape[-1]] = g.reshape(-1, i.shape[-1], dm).sum(axis=0)
        return gt, gp
''')

INDEPENDENT = textwrap.dedent('''\
    def lookup(table, token_ids):
        out = []
        for row in token_ids:
            out.append([table[t] for t in row] if hasattr(row, "__len__") else table[row])
        return out


    def norm(v):
        total = 0.0
        for x in v:
            total += x * x
        return total ** 0.5
''')


def _functions(text: str) -> dict[str, tuple[int, int]]:
    """name -> (first, last) line of each top-level function."""
    lines = text.splitlines()
    starts = [(i, line[4:line.index("(")]) for i, line in enumerate(lines, 1)
              if line.startswith("def ")]
    ends = [s - 1 for s, _ in starts[1:]] + [len(lines)]
    return {name: (s, e) for (s, name), e in zip(starts, ends)}


def _overlap(r1: tuple[int, int], r2: tuple[int, int]) -> bool:
    return r1[0] <= r2[1] and r2[0] <= r1[1]


def test_a_disguised_copy_is_matched_function_by_function_at_its_own_lines():
    frags = S.matched_fragments(ORIGINAL, DISGUISED)
    assert frags, "a renamed, reordered copy shares fragments"
    assert [f.a for f in frags] == sorted(f.a for f in frags)      # in the first text's order
    fa, fb = _functions(ORIGINAL), _functions(DISGUISED)
    assert list(fa) != list(fb)                                     # reordered
    for name in fa:
        mine = [f for f in frags if _overlap(f.a, fa[name])]
        assert mine, f"{name}: no fragment in the original's {name}"
        for f in mine:   # the other side of it is the same function, wherever it now is
            assert _overlap(f.b, fb[name]), (name, f, fb[name])
            # whole functions in one fragment span the same functions on both sides
            assert {n for n in fa if _overlap(f.a, fa[n])} == \
                {n for n in fb if _overlap(f.b, fb[n])}
    # most of the code is covered
    covered = {line for f in frags for line in range(f.a[0], f.a[1] + 1)}
    code = {i for i, line in enumerate(ORIGINAL.splitlines(), 1) if line.strip()}
    assert len(covered & code) >= 0.7 * len(code)


def test_fragments_never_overlap_on_either_side():
    frags = S.matched_fragments(ORIGINAL + "\n" + ORIGINAL, DISGUISED)
    for side in ("a", "b"):
        spans = sorted(getattr(f, side) for f in frags)
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert start >= end, (side, spans)   # a line at most shared by two neighbours


def test_independent_code_and_boilerplate_share_nothing():
    assert S.matched_fragments(ORIGINAL, INDEPENDENT) == []
    assert S.matched_fragments(ORIGINAL, "") == []
    assert S.matched_fragments("x = (", ORIGINAL) == []          # broken source: best effort
    # boilerplate: every fingerprint ignored leaves nothing to show
    everything = S.fingerprints(ORIGINAL) | S.fingerprints(DISGUISED)
    assert S.matched_fragments(ORIGINAL, DISGUISED, ignore=everything) == []


def test_common_fingerprints_are_what_many_submissions_share():
    extras = ["", INDEPENDENT,
              "def f(a):\n    while a > 0:\n        a -= 1\n    return [a, a * 2]\n",
              "class C:\n    def g(self, b):\n        return {k: b for k in range(3)}\n",
              "import os\nprint(os.getcwd(), sorted([3, 1, 2]), max(1, 2, key=abs))\n"]
    texts = {f"s{i}.py": ORIGINAL + "\n" + extra for i, extra in enumerate(extras)}
    texts["other.py"] = INDEPENDENT
    assert len({S.fingerprints(t) for t in texts.values()}) == len(texts)   # all different
    common = S.common_fingerprints(texts)
    assert common and common <= S.fingerprints(ORIGINAL)
    assert not common & S.fingerprints(INDEPENDENT) - S.fingerprints(ORIGINAL)
    assert S.common_fingerprints({"a.py": ORIGINAL, "b.py": DISGUISED}) == frozenset()


def test_fragments_are_the_fingerprints_the_figure_counts():
    """The fragments come from the same winnowed fingerprints as the flag's figure: the
    fingerprints both texts hold all lie inside a fragment."""
    shared = S.fingerprints(ORIGINAL) & S.fingerprints(DISGUISED)
    toks, lines = S.located_tokens(ORIGINAL)
    assert len(toks) == len(lines) and lines == sorted(lines)
    frags = S.matched_fragments(ORIGINAL, DISGUISED)
    hashes = S._kgram_hashes(toks, S.K)
    for i, h in enumerate(hashes):
        if h in shared:
            first, last = lines[i], lines[i + S.K - 1]
            assert any(f.a[0] <= first and last <= f.a[1] for f in frags) or \
                any(f.a[0] <= first <= f.a[1] for f in frags), (i, first, last)


def test_the_number_of_fragments_is_bounded():
    block = "def f{n}(a):\n    b = a + 1\n    c = b * 2\n    return [c, b, a, c * b]\n\n"
    text = "".join(block.format(n=i) for i in range(2000))
    frags = S.matched_fragments(text, text)
    assert 0 < len(frags) <= S.MAX_FRAGMENTS


def test_reference_fragments_name_the_reference_file_and_lines():
    from tests.workflow.disguise import disguise, reference_as_one_module

    copy = disguise(reference_as_one_module(), "m")
    found = S.reference_fragments(copy)
    files = dict(S.reference_sources())
    assert found and all(name in files and mine == "" for mine, name, _ in found)
    for _, name, f in found:
        assert 1 <= f.b[0] <= f.b[1] <= len(files[name].splitlines())
        assert 1 <= f.a[0] <= f.a[1] <= len(copy.splitlines())
    assert S.reference_fragments(INDEPENDENT) == []


def test_fingerprints_and_pairs_are_unchanged_by_the_located_tokens():
    """tokens() is located_tokens()'s first half; the flag's figure is what it was."""
    assert S.tokens(ORIGINAL) == S.located_tokens(ORIGINAL)[0]
    pairs = S.similar_pairs({"a.py": ORIGINAL, "b.py": DISGUISED, "c.py": INDEPENDENT})
    assert [(a, b) for a, b, _ in pairs] == [("a.py", "b.py")]


def test_file_fragments_follow_code_across_files_and_never_span_two():
    """A submission's files are fingerprinted apart: a function moved into a helper file is
    found there, at that file's own lines, and no fragment runs from one file into another."""
    funcs = _functions(ORIGINAL)
    lines = ORIGINAL.splitlines(keepends=True)
    norm = "".join(lines[funcs["norm"][0] - 1:])
    main = "".join(lines[:funcs["norm"][0] - 1])
    other = [("hw.py", main), ("helpers/vec.py", "import numpy as np\n\n\n" + norm)]
    found = S.file_fragments([("a.py", ORIGINAL)], other)
    assert {fb for _, fb, _ in found} == {"hw.py", "helpers/vec.py"}
    n_main, n_help = len(main.splitlines()), len(other[1][1].splitlines())
    for fa, fb, f in found:
        assert fa == "a.py"
        assert f.b[1] <= (n_main if fb == "hw.py" else n_help), (fb, f)
        if fb == "helpers/vec.py":        # norm, at its own lines in the helper and in a.py
            assert f.a[0] >= funcs["norm"][0] and f.b[0] >= 4
    # one text or (file, text)s: the same fragments
    assert [f for *_, f in S.file_fragments(ORIGINAL, DISGUISED)] == \
        S.matched_fragments(ORIGINAL, DISGUISED)
