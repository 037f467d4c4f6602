"""The plain-words reading of identifiers and the test for names that say nothing."""

from __future__ import annotations

import pytest

from knowledge.abbreviations import expand_name, is_opaque_name


@pytest.mark.parametrize("name", ["c14", "t_03", "X2", "F_A", "c_17_x", "A1"])
def test_names_without_a_readable_part_are_opaque(name: str) -> None:
    assert is_opaque_name(name)


@pytest.mark.parametrize("name", ["customer_name", "CUST_NM", "NTNLTY", "t_fed_rev", "EQ_PX_D", "id", "age",
                                  "UnitPrice", "PX"])
def test_words_and_abbreviations_are_not_opaque(name: str) -> None:
    assert not is_opaque_name(name)


def test_expand_name_reads_abbreviations_only() -> None:
    assert expand_name("CUST_NM") == "customer name"
    assert expand_name("customer_name") is None and expand_name("DALIS") is None
