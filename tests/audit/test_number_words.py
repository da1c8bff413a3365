"""Numbers written in words, read back: each is written by an independent writer (num2words
for Dutch, English and Sino-Korean; a small table here for native Korean numerals) and must be
read as the same value by graders.audit.numbers (text2num for Dutch and English, the reader in
numbers.py for Korean)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.audit.numbers import read_number_words, read_sino_korean

num2words = pytest.importorskip("num2words").num2words


def _one(text: str, lang: str) -> Decimal:
    found = read_number_words(text, lang)
    assert len(found) == 1, (text, found)
    return found[0].value


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10 ** 10))
def test_dutch_round_trip(n):
    words = num2words(n, lang="nl")
    assert _one(f"Een tabel met {words} rijen.", "nl") == n, words


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10 ** 10))
def test_english_round_trip(n):
    # num2words separates groups by commas ("one million, two hundred"); a text may not
    words = num2words(n, lang="en").replace(",", "")
    assert _one(f"A table of {words} rows.", "en") == n, words


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10 ** 12))
def test_sino_korean_round_trip(n):
    words = num2words(n, lang="ko")
    # a lone syllable (일, 십, 만) is read only before a counter; see the test below
    assume(len(words) >= 2)
    assert _one(f"테이블에는 {words}개의 행이 있습니다.", "ko") == n, words
    assert read_sino_korean(words.replace(" ", "")) == n


# Native Korean numerals, written by this table (not the reader's)
_NATIVE_TENS = ["", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔"]
_NATIVE_UNITS = ["", "하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉"]


@given(st.integers(1, 99))
def test_native_korean_round_trip(n):
    words = _NATIVE_TENS[n // 10] + _NATIVE_UNITS[n % 10]
    assert _one(f"사과가 {words} 있습니다.", "ko") == n, words


@pytest.mark.parametrize("text, value", [
    ("두 개의 테이블", 2), ("세 가지 해결책", 3), ("스무 개", 20), ("칠 퍼센트", 7),
    ("칠백이십칠만 개의 파라미터", 7270000), ("일억 이천만", 120000000), ("팔천사백사십구", 8449),
    ("만 일", 10001),
])
def test_korean_in_context(text, value):
    assert _one(text, "ko") == value


@pytest.mark.parametrize("text", [
    "이는 사용 구성된 일반 이 차원", "토큰 임베딩 테이블에만", "두 벡터 사이의 각도", "수행하는",
])
def test_korean_words_that_are_not_numbers(text):
    assert read_number_words(text, "ko") == []


@pytest.mark.parametrize("text, values", [
    ("Een vector van zevenhonderdzevenenzestig dimensies.", [767]),
    ("Een tabel en een vector.", []),                      # "een" is the article
    ("één gedeelde matrix", [1]),                          # "één" is the numeral
    ("achtduizend vierhonderdnegenenveertig rijen en drie kolommen", [8449, 3]),
    ("zes miljoen vierhonderdachtentachtigduizend achthonderdtweeëndertig", [6488832]),
    ("Tweeënzeventig en dertig", [72, 30]),
    ("ongeveer zes komma vier procent", [Decimal("6.4")]),
    ("zes komma vijf miljoen parameters", [6500000]),
])
def test_dutch_in_context(text, values):
    assert [w.value for w in read_number_words(text, "nl")] == values


def test_precision_of_numbers_in_words():
    (w,) = read_number_words("칠백삼십만", "ko")
    assert (w.value, w.precision) == (7300000, 100000)      # as "730만"
    (w,) = read_number_words("zeven miljoen", "nl")
    assert (w.value, w.precision) == (7000000, 1000000)
    (w,) = read_number_words("zevenhonderdachtenzestig", "nl")
    assert w.precision == 1
