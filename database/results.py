"""What a read-only query returns: :class:`QueryResult`, and the cell conversions every driver's values go through.

Values leave the database layer JSON-friendly (:func:`to_jsonable`) so results can be stored, sent over MCP and
shown without driver types; :func:`format_cell` is the short text form prompts and previews use.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

CELL_CHARS = 40
"""Width a cell is cut to in previews and prompts (characters, "..." included)."""


@dataclass
class QueryResult:
    """Outcome of :meth:`Database.run_query`.

    ``columns`` are the result column names; ``rows`` are tuples of JSON-friendly values (None, bool,
    int, float, str; dates as ISO strings; bytes as hex). ``truncated`` is True when the row cap, the byte
    budget or (PostgreSQL, between fetches) the time limit cut the result, or a cell was shortened (``note`` says which). ``elapsed_s`` is wall time in seconds. On failure ``ok`` is False and ``error`` holds the
    guard's or the database's message.
    """

    ok: bool
    sql: str
    columns: list[str] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    truncated: bool = False
    elapsed_s: float = 0.0
    error: str | None = None
    note: str | None = None
    """Why the result was cut, when it was (row cap, byte budget, long cells)."""

    def to_dataframe(self) -> pd.DataFrame:
        """The rows as a pandas DataFrame with ``columns`` as header (empty frame on failure)."""
        import pandas as pd

        return pd.DataFrame.from_records(self.rows, columns=self.columns)

    def preview(self, n: int = 5) -> str:
        """Compact text: header, the first ``n`` rows (" | "-separated, cells cut to ~40 chars), a tally."""
        if not self.ok:
            return f"ERROR: {self.error}"
        lines = [" | ".join(self.columns)]
        lines += [" | ".join(format_cell(v) for v in row) for row in self.rows[:n]]
        more = len(self.rows) - min(n, len(self.rows))
        tally = f"{len(self.rows)} row(s)" + (" (truncated at the row cap)" if self.truncated else "")
        if more:
            tally = f"... {more} more; {tally}"
        return "\n".join([*lines, tally])


def format_cell(value: Any, width: int = CELL_CHARS) -> str:
    """One value as short text.

    None -> "NULL", floats to 10 significant digits, whitespace flattened, cut to ``width`` chars with "...".
    """
    if value is None:
        return "NULL"
    text = f"{value:.10g}" if isinstance(value, float) else " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def to_jsonable(value: Any) -> Any:
    """Convert a driver value to a JSON-friendly Python value (see :class:`QueryResult`)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**63 else float(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    read = getattr(value, "read", None)  # Oracle LOBs that were not fetched as str/bytes
    return to_jsonable(read()) if callable(read) else str(value)
