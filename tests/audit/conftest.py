from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO.parent / "shared" / "seeds"


def _seed(lang_marker: str) -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"course documents not present at {SEEDS}")
    for p in sorted(SEEDS.glob("*.txt")):
        text = p.read_text(encoding="utf-8")
        if lang_marker == "ko" and "임베딩" in text:
            return p
        if lang_marker == "nl" and "Een Embedding Is een Lookup" in text:
            return p
    pytest.skip(f"no {lang_marker} course document in {SEEDS}")


@pytest.fixture
def nl_doc() -> Path:
    return _seed("nl")


@pytest.fixture
def ko_doc() -> Path:
    return _seed("ko")


@pytest.fixture(scope="session")
def spec():
    from spec import load_spec
    return load_spec("andrea-120m")


def edited_copy(text: str, edits, out: Path, what: str) -> Path:
    """Write `text` with each (old, new) edit applied to `out`; each old must occur once."""
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} should occur exactly once in {what}"
        text = text.replace(old, new)
    out.write_text(text, encoding="utf-8")
    return out
