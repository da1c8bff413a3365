from decimal import Decimal

from graders.audit.numbers import alternative_locales, read_korean, read_literal, round_to


def test_dutch_and_english_separators_via_babel():
    assert read_literal("6.488.832", "nl").value == 6488832
    assert read_literal("5,4", "nl").value == Decimal("5.4")
    assert read_literal("6,488,832", "ko").value == 6488832
    # The ambiguity the audit reports: a Dutch reader takes "1,024" as 1.024.
    r = read_literal("1,024", "nl")
    assert r.value == Decimal("1.024") and r.well_formed
    assert read_literal("1,024", "en").value == 1024
    # "6,488,832" is not a Dutch number at all; "0.79" is badly grouped for Dutch.
    assert read_literal("6,488,832", "nl").value is None
    assert not read_literal("0.79", "nl").well_formed


def test_scale_words_and_precision():
    r = read_literal("6,5", "nl", Decimal(10 ** 6), scaled=True)
    assert (r.value, r.precision) == (Decimal(6500000), Decimal(100000))
    r = read_literal("120", "en", Decimal(10 ** 6), scaled=True)
    assert (r.value, r.precision) == (Decimal(120000000), Decimal(10000000))
    # a bare integer is exact, trailing zeros included
    assert read_literal("6,488,830", "en").precision == 1


def test_korean_units():
    r = read_korean("650만", "ko")
    assert (r.value, r.precision) == (Decimal(6500000), Decimal(100000))
    r = read_korean("1억 2천만", "ko")
    assert (r.value, r.precision) == (Decimal(120000000), Decimal(10000000))
    assert read_korean("730만", "ko").value == 7300000
    assert read_korean("3천", "ko").value == 3000
    assert read_korean("2억", "ko").value == 200000000


def test_rounding_is_half_up_and_alternatives():
    assert round_to(Decimal("7.275264"), Decimal("0.01")) == Decimal("7.28")
    assert round_to(Decimal(6488832), Decimal(100000)) == 6500000
    assert alternative_locales("nl") == ["en"]
    assert alternative_locales("ko") == ["nl"]
