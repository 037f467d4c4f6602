"""Strict and tolerant execution accuracy on hand-made results."""

from __future__ import annotations

from eval.metrics import results_match, tolerant_match

GOLD = [(101.5,), (99.0,)]


def test_tolerant_accepts_extra_columns_row_aligned() -> None:
    with_extras = [("2025-10-31", 101.5, "EUR"), ("2025-10-30", 99.0, "EUR")]
    assert tolerant_match(GOLD, with_extras, ordered=True)
    assert not results_match(GOLD, with_extras, ordered=True)
    assert tolerant_match(GOLD, [(99.0, "b"), (101.5, "a")], ordered=False)
    assert not tolerant_match(GOLD, [(99.0, "b"), (101.5, "a")], ordered=True)  # order matters when gold orders


def test_tolerant_needs_every_gold_column_aligned_in_distinct_columns() -> None:
    gold = [("AAPL", 1.0), ("MSFT", 2.0)]
    assert tolerant_match(gold, [("x", 2.0, "MSFT"), ("y", 1.0, "AAPL")], ordered=False)
    # the values exist but in the wrong rows: not aligned
    assert not tolerant_match(gold, [("AAPL", 2.0), ("MSFT", 1.0)], ordered=False)
    # one prediction column cannot stand for two gold columns
    assert not tolerant_match([(1, 1), (2, 2)], [(1,), (2,)], ordered=False)
    assert not tolerant_match(GOLD, [(101.5,)], ordered=False)  # row count differs
    assert tolerant_match([], [], ordered=False)


def test_strict_implies_tolerant() -> None:
    for gold, pred, ordered in [(GOLD, GOLD, True), ([(1, "a")], [("a", 1)], False), ([(3,)], [(3.0,)], True)]:
        assert results_match(gold, pred, ordered=ordered) and tolerant_match(gold, pred, ordered=ordered)


def test_tolerant_accepts_fewer_columns_when_only_context_is_left_out() -> None:
    gold = [("2025-10-31", 101.5, "EUR")]  # "current price of ASML": date, price, currency
    assert tolerant_match(gold, [(101.5,)], ordered=True)  # the price alone
    assert tolerant_match([("LVMH", "XPAR")], [("LVMH",)], ordered=False)  # ticker without its exchange
    assert not tolerant_match(gold, [("2025-10-31",)], ordered=True)  # the price (a number) is missing
    closes = [("SAP", "2025-10-31", 230.1), ("SIE", "2025-10-31", 211.0)]
    assert not tolerant_match(closes, [("SAP",), ("SIE",)], ordered=False)  # tickers without their closes
    assert tolerant_match(closes, [("SAP", 230.1), ("SIE", 211.0)], ordered=False)
    assert not tolerant_match(closes, [("SAP", 211.0), ("SIE", 230.1)], ordered=False)  # not row-aligned
    assert not tolerant_match([("a", None), ("b", 2)], [("a",), ("b",)], ordered=False)  # numeric with a NULL
    assert tolerant_match([("a", None), ("b", None)], [("a",), ("b",)], ordered=False)  # all NULL: no measure


def test_engine_types_compare_as_sqlite_text_and_floats() -> None:
    import datetime as dt
    from decimal import Decimal

    postgres = [(dt.date(2025, 10, 31), Decimal("101.50")), (dt.date(2025, 10, 30), Decimal("99"))]
    sqlite = [("2025-10-31", 101.5), ("2025-10-30", 99.0)]
    assert results_match(sqlite, postgres, ordered=True)
    assert results_match([("2009-01-01 00:00:00",)], [(dt.datetime(2009, 1, 1),)], ordered=False)
    assert not results_match(sqlite, [(dt.date(2025, 10, 31), Decimal("101.49"))], ordered=False)
