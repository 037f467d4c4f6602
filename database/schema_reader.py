"""Read a database's schema (tables, columns, keys, comments, sample rows) into :mod:`schema_types`.

Catalog data comes from the SQLAlchemy inspector, or on Oracle from the ``ALL_*`` dictionary views of
the current schema. Missing comments are filled from a YAML metadata file
(``tables: {TABLE: {description: str, columns: {COL: comment}}}``); for SQLite the sidecar
``<stem>.metadata.yaml`` next to the database file is used when present. Remaining gaps may be filled from
LLM-generated descriptions (:mod:`database.descriptions`, written by :mod:`retrieval.enrichment`); optionally columns are profiled
(:mod:`database.profiling`) and sensitive values masked (:mod:`database.masking`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import sqlglot.expressions as exp
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.types import NullType
from sqlglot.dialects.dialect import Dialect

from database.connection import Database
from database.descriptions import load_enriched, load_metadata, merge_enriched, merge_metadata
from database.masking import mask_table
from database.profiling import attach_profiles
from database.results import format_cell
from database.schema_types import ColumnInfo, ForeignKey, TableInfo

_RESERVED = frozenset({  # quoted in DDL: reserved (or risky) in at least one supported dialect
    "add", "all", "alter", "and", "any", "as", "asc", "between", "by", "case", "check", "column",
    "constraint", "create", "cross", "current_date", "current_time", "current_timestamp", "default",
    "delete", "desc", "distinct", "drop", "else", "end", "except", "exists", "foreign", "from", "full",
    "group", "having", "in", "index", "inner", "insert", "intersect", "into", "is", "join", "key", "left",
    "like", "limit", "natural", "not", "null", "offset", "on", "or", "order", "outer", "primary",
    "references", "right", "rows", "select", "set", "table", "then", "to", "union", "unique", "update",
    "user", "using", "values", "view", "when", "where", "with", "level", "comment", "date", "size",
    "number", "uid"
})
_DATE_TYPE_RE = re.compile(r"DATE|TIMESTAMP")


def read_schema(
    db: Database,
    *,
    sample_rows: int = 5,
    metadata_path: Path | None = None,
    profile: bool = False,
    sensitive_patterns: list[str] | None = None,
    enriched_path: Path | None = None,
    use_enriched: bool = True,
    use_drafts: bool = False,
) -> list[TableInfo]:
    """All tables and views of ``db`` as :class:`TableInfo`, sorted as the catalog lists them.

    ``sample_rows`` rows per table are fetched through :meth:`Database.run_query` (latest first when a
    date-like column exists; 0 disables). Comments missing in the database are taken from the YAML file
    at ``metadata_path`` (default: the SQLite sidecar ``<stem>.metadata.yaml``, if any). Then, with
    ``use_enriched``, gaps still left are filled from the generated descriptions at ``enriched_path``
    (default: the SQLite sidecar ``<stem>.enriched.yaml``; a missing file is ignored): approved and edited
    entries, pending ones only with ``use_drafts``, never rejected ones
    (:func:`database.descriptions.merge_enriched`); human text always wins.
    ``profile=True`` attaches :class:`ColumnProfile` statistics (:func:`database.profiling.attach_profiles`);
    ``sensitive_patterns`` (regexes) mask the values of matching columns in sample rows and profiles
    (:func:`database.masking.mask_table`). Raises FileNotFoundError when ``metadata_path`` is given but
    missing, ValueError for a malformed enriched file, and the driver's error when the catalog cannot be read.
    """
    if db.sqlite_path is not None and not db.sqlite_path.is_file():
        raise FileNotFoundError(f"Database file not found: {db.sqlite_path}")
    tables = _read_oracle(db) if db.dialect == "oracle" else _read_inspector(db)
    by_name = {t.name.lower(): t for t in tables}
    for table in tables:  # SQLite allows "REFERENCES parent" without columns: it means the parent's PK
        for fk in table.foreign_keys:
            parent = by_name.get(fk.ref_table.lower())
            if not fk.ref_columns and parent is not None:
                fk.ref_columns = list(parent.primary_key)
    if metadata_path is None and db.sqlite_path is not None:
        sidecar = db.sqlite_path.with_name(f"{db.sqlite_path.stem}.metadata.yaml")
        metadata_path = sidecar if sidecar.is_file() else None
    if metadata_path is not None:
        merge_metadata(tables, load_metadata(metadata_path))
    if use_enriched and enriched_path is None and db.sqlite_path is not None:
        enriched_path = db.sqlite_path.with_name(f"{db.sqlite_path.stem}.enriched.yaml")
    if use_enriched and enriched_path is not None and enriched_path.is_file():
        merge_enriched(tables, load_enriched(enriched_path), use_drafts=use_drafts)
    if sample_rows > 0:
        for table in tables:
            table.sample_rows = fetch_sample_rows(db, table, sample_rows)
    if profile:
        attach_profiles(db, tables)
    if sensitive_patterns:
        tables = [mask_table(t, sensitive_patterns) for t in tables]
    return tables


def _read_inspector(db: Database) -> list[TableInfo]:
    """Catalog through the SQLAlchemy inspector (SQLite, PostgreSQL, MySQL, ...)."""
    insp = sa_inspect(db.engine)
    tables = []
    for name in [*insp.get_table_names(), *insp.get_view_names()]:
        pk = list(insp.get_pk_constraint(name).get("constrained_columns") or [])
        columns = [
            ColumnInfo(
                name=c["name"],
                type=_type_text(c["type"], db),
                nullable=bool(c.get("nullable", True)),
                primary_key=c["name"] in pk,
                comment=c.get("comment") or None,
            )
            for c in insp.get_columns(name)
        ]
        fks = [
            ForeignKey(list(f["constrained_columns"]), f["referred_table"], list(f["referred_columns"] or []))
            for f in insp.get_foreign_keys(name)
        ]
        try:
            comment = insp.get_table_comment(name).get("text") or None
        except NotImplementedError:
            comment = None
        tables.append(TableInfo(name, columns, pk, fks, comment))
    return tables


def _type_text(sa_type: Any, db: Database) -> str:
    """Declared SQL type as text ("" when the column has none, as SQLite allows)."""
    if isinstance(sa_type, NullType):
        return ""
    try:
        return str(sa_type.compile(dialect=db.engine.dialect))
    except Exception:
        return type(sa_type).__name__.upper()


_ORACLE_QUERIES = {
    "owner": "SELECT SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA') FROM DUAL",
    "tables": "SELECT table_name FROM all_tables WHERE owner = :o AND nested = 'NO' AND secondary = 'N' "
    "AND dropped = 'NO' UNION SELECT view_name FROM all_views WHERE owner = :o ORDER BY 1",
    "columns": "SELECT table_name, column_name, data_type, char_length, data_precision, data_scale, nullable "
    "FROM all_tab_columns WHERE owner = :o ORDER BY table_name, column_id",
    "keys": "SELECT c.table_name, c.constraint_name, c.constraint_type, cc.column_name, r.table_name, "
    "rc.column_name FROM all_constraints c JOIN all_cons_columns cc ON cc.owner = c.owner "
    "AND cc.constraint_name = c.constraint_name AND cc.table_name = c.table_name "
    "LEFT JOIN all_constraints r ON r.owner = c.r_owner AND r.constraint_name = c.r_constraint_name "
    "LEFT JOIN all_cons_columns rc ON rc.owner = r.owner AND rc.constraint_name = r.constraint_name "
    "AND rc.position = cc.position WHERE c.owner = :o AND c.constraint_type IN ('P', 'R') "
    "ORDER BY c.table_name, c.constraint_name, cc.position",
    "table_comments": "SELECT table_name, comments FROM all_tab_comments WHERE owner = :o "
    "AND comments IS NOT NULL",
    "column_comments": "SELECT table_name, column_name, comments FROM all_col_comments WHERE owner = :o "
    "AND comments IS NOT NULL",
}


def _read_oracle(db: Database) -> list[TableInfo]:
    """Catalog of the current Oracle schema from ALL_TABLES/ALL_VIEWS/ALL_TAB_COLUMNS/... views."""
    owner = db._catalog_rows(_ORACLE_QUERIES["owner"])[0][0]
    q = {k: db._catalog_rows(v, {"o": owner}) for k, v in _ORACLE_QUERIES.items() if k != "owner"}
    tables = {name: TableInfo(name, []) for (name,) in q["tables"]}
    col_comments = {(t, c): text for t, c, text in q["column_comments"]}
    for tname, comment in q["table_comments"]:
        if tname in tables:
            tables[tname].comment = comment
    for tname, cname, dtype, length, precision, scale, nullable in q["columns"]:
        if tname in tables:
            type_text = _oracle_type(dtype, length, precision, scale)
            comment = col_comments.get((tname, cname))
            tables[tname].columns.append(ColumnInfo(cname, type_text, nullable == "Y", False, comment))
    fks: dict[tuple[str, str], ForeignKey] = {}
    for tname, cons, ctype, cname, ref_table, ref_col in q["keys"]:
        table = tables.get(tname)
        if table is None:
            continue
        if ctype == "P":
            table.primary_key.append(cname)
            col = table.column(cname)
            if col is not None:
                col.primary_key = True
        else:
            fk = fks.setdefault((tname, cons), ForeignKey([], ref_table, []))
            if not fk.columns:
                table.foreign_keys.append(fk)
            fk.columns.append(cname)
            fk.ref_columns.append(ref_col)
    return list(tables.values())


def _oracle_type(dtype: str, length: Any, precision: Any, scale: Any) -> str:
    """Oracle DATA_TYPE plus size, e.g. "VARCHAR2(40)", "NUMBER(10,2)", "DATE"."""
    if dtype in ("VARCHAR2", "NVARCHAR2", "CHAR", "NCHAR", "RAW") and length:
        return f"{dtype}({int(length)})"
    if dtype == "NUMBER" and precision is not None:
        return f"NUMBER({int(precision)},{int(scale or 0)})" if scale else f"NUMBER({int(precision)})"
    return str(dtype)


def date_column(table: TableInfo) -> str | None:
    """Name of the column best suited to order rows by recency, or None.

    Prefers a DATE/DATETIME/TIMESTAMP type over a date-like name (``*date*``, ``*_dt``, ``*DT``,
    ``*time*``); columns about births (birth/born/dob) come last.
    """

    def by_name(c: ColumnInfo) -> bool:
        low = c.name.lower()
        return "date" in low or "time" in low or low.endswith("_dt") or c.name.endswith("DT")

    def about_birth(c: ColumnInfo) -> bool:
        return any(word in c.name.lower() for word in ("birth", "born", "dob"))

    typed = [c for c in table.columns if _DATE_TYPE_RE.search(c.type.upper())]
    named = [c for c in table.columns if by_name(c) and c not in typed]
    ranked = sorted(typed, key=about_birth) + sorted(named, key=about_birth)
    return ranked[0].name if ranked else None


def sample_query(table: TableInfo, n: int, dialect: str) -> str:
    """SELECT of up to ``n`` rows of ``table`` (latest first by :func:`date_column`), quoted for ``dialect``."""
    query = exp.select("*").from_(exp.Table(this=exp.to_identifier(table.name, quoted=True))).limit(n)
    order_by = date_column(table)
    if order_by:
        column = exp.Column(this=exp.to_identifier(order_by, quoted=True))
        query = query.order_by(exp.Ordered(this=column, desc=True, nulls_first=False))
    return query.sql(dialect=dialect)


def fetch_sample_rows(db: Database, table: TableInfo, n: int) -> list[dict[str, Any]]:
    """Up to ``n`` rows of ``table`` as dicts column -> value via the guarded path ([] on any failure)."""
    result = db.run_query(sample_query(table, n, db.dialect), row_cap=n)
    if not result.ok:
        return []
    return [dict(zip(result.columns, row, strict=False)) for row in result.rows]


def quote_identifier(name: str, dialect: str = "sqlite") -> str:
    """``name`` as written in ``dialect``: bare when safe, quoted when unusual, case-sensitive or reserved."""
    ident = Dialect.get_or_raise(dialect).quote_identifier(exp.to_identifier(name), identify=False)
    if name.lower() in _RESERVED:
        ident.set("quoted", True)
    return ident.sql(dialect=dialect)


def table_ddl(table: TableInfo, dialect: str = "sqlite") -> str:
    """Compact CREATE TABLE for prompts: valid DDL with the boilerplate a query writer does not need removed.

    The description comes as leading ``--`` comment lines and each documented column's comment after it;
    single-column keys are inline (``PRIMARY KEY``, ``REFERENCES t (c)``), composite keys table-level.
    ``NOT NULL`` is left out (it rarely changes a query and costs two tokens a column). The form is canonical
    (columns in table order, keys in schema order), so one table always renders to the same bytes: the
    stable prompt prefix the LLM server's prompt cache relies on. The idea of a compact, schema-faithful
    listing follows M-Schema (XiYan-SQL, Gao et al. 2024) while keeping DDL syntax the model has seen most.
    """
    q = lambda name: quote_identifier(name, dialect)  # noqa: E731
    single_pk = table.primary_key[0] if len(table.primary_key) == 1 else None
    inline: dict[str, ForeignKey] = {}
    for fk in table.foreign_keys:
        if len(fk.columns) == 1 and len(fk.ref_columns) <= 1 and fk.columns[0] not in inline:
            inline[fk.columns[0]] = fk
    parts: list[tuple[str, str | None]] = []
    for col in table.columns:
        text = f"  {q(col.name)}" + (f" {col.type}" if col.type else "")
        if col.name == single_pk:
            text += " PRIMARY KEY"
        ref = inline.get(col.name)
        if ref is not None:
            text += f" REFERENCES {q(ref.ref_table)}" + (f" ({q(ref.ref_columns[0])})" if ref.ref_columns else "")
        parts.append((text, col.comment))
    if len(table.primary_key) > 1:
        parts.append((f"  PRIMARY KEY ({', '.join(map(q, table.primary_key))})", None))
    for fk in table.foreign_keys:
        if inline.get(fk.columns[0]) is fk:
            continue
        refs = f" ({', '.join(map(q, fk.ref_columns))})" if fk.ref_columns else ""
        parts.append((f"  FOREIGN KEY ({', '.join(map(q, fk.columns))}) REFERENCES {q(fk.ref_table)}{refs}", None))
    lines = [f"-- {' '.join(line.split())}" for line in (table.comment or "").splitlines() if line.strip()]
    lines.append(f"CREATE TABLE {q(table.name)} (")
    for i, (text, comment) in enumerate(parts):
        text += "," if i < len(parts) - 1 else ""
        lines.append(text + (f" -- {' '.join(comment.split())}" if comment else ""))
    lines.append(");")
    return "\n".join(lines)


def format_sample_rows(table: TableInfo, n: int = 3) -> str:
    """First ``n`` sample rows as " | "-separated text with a header line; cells cut to ~40 chars.

    Returns "" when the table has no sample rows.
    """
    rows = table.sample_rows[:n]
    if not rows:
        return ""
    names = list(rows[0].keys())
    lines = [" | ".join(names)]
    lines += [" | ".join(format_cell(row.get(name)) for name in names) for row in rows]
    return "\n".join(lines)
