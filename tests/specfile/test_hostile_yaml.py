"""Spec files written to hang or crash the spec loader (tests/specfile/hostile_yaml/): each file's
leading comment says the attack and the expected outcome. Each must be a SpecError naming the
file, at once (the alias bombs took hours and all memory before the size guard)."""
from __future__ import annotations

from pathlib import Path

import pytest

from spec.loader import MAX_VALUES, SpecError, _expanded_size, load_spec, read_spec_file

HOSTILE = Path(__file__).resolve().parent / "hostile_yaml"


@pytest.mark.parametrize("name", sorted(p.name for p in HOSTILE.glob("*.yaml")))
def test_an_alias_attack_is_a_spec_error_naming_the_aliases(name):
    with pytest.raises(SpecError) as exc:
        load_spec(HOSTILE / name)
    msg = str(exc.value)
    assert name in msg and "aliases (*name)" in msg and "\n" not in msg, msg


def test_the_bundled_specs_aliases_stay_far_below_the_limit():
    """The bundled specs share their contracts' error lists through aliases: allowed."""
    for name in ("andrea-120m", "gpt2-small"):
        path = Path(__file__).resolve().parents[2] / "spec" / f"{name}.yaml"
        assert "*" in path.read_text(encoding="utf-8")
        assert _expanded_size(read_spec_file(path)) < MAX_VALUES // 20
        load_spec(path)


def test_the_count_expands_aliases_and_stops_at_the_limit():
    leaf = ["x"] * 10
    tree = {"a": leaf, "b": [leaf, leaf]}
    assert _expanded_size(tree) == 1 + 2 + 11 + 1 + 22
    cyclic: list = ["x"]
    cyclic.append(cyclic)
    assert _expanded_size(cyclic) == MAX_VALUES + 1
