"""French question translation helpers (agent.translate): ISO dates survive the model's rewording."""

from __future__ import annotations

import pytest

from agent.translate import keep_iso_dates, still_a_question


@pytest.mark.parametrize(("french", "english", "expected"), [
    ("Poids d'Apple au 2025-10-31 ?", "Apple's weight on October 31, 2025?", "Apple's weight on 2025-10-31?"),
    ("Taux au 2025-06-30", "Rate on 30th June 2025", "Rate on 2025-06-30"),
    ("Clôture le 30 juin 2025", "Close on June 30, 2025", "Close on June 30, 2025"),  # not ISO in French
    ("Taux au 2025-06-30", "Rate on May 3, 2024", "Rate on May 3, 2024"),  # another date stays
    ("Taux au 2025-02-30", "Rate on February 30, 2025", "Rate on February 30, 2025"),  # not a date
])
def test_keep_iso_dates(french: str, english: str, expected: str) -> None:
    assert keep_iso_dates(french, english) == expected


def test_a_question_that_comes_back_as_a_statement_is_not_used() -> None:
    french = "Où Tencent est-elle immatriculée et dans quelle devise se négocie-t-elle ?"
    assert not still_a_question(french, "Tencent is incorporated in Shenzhen and trades in Renminbi.")
    assert still_a_question(french, "Where is Tencent incorporated, and in which currency does it trade?")
    assert still_a_question("Cours de clôture moyen de SAP par mois en 2025", "Average closing price of SAP")
