"""Static read-only guard for model-written SQL.

:func:`guard_sql` parses a statement with sqlglot in the target dialect and accepts it only when it is a
single read-only query (SELECT, a set operation such as UNION, or a WITH whose body is a query) with no
write, DDL, session or transaction node anywhere in its tree and no call to a known dangerous function.
It is the first of two layers: :mod:`database.connection` also opens every connection read-only, so a
statement that slips past the guard still cannot change data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import ParseError, SqlglotError, TokenError
from sqlglot.tokens import TokenType

_SQLGLOT_DIALECTS = {"postgresql": "postgres", "postgres": "postgres", "sqlite": "sqlite", "oracle": "oracle",
                     "mysql": "mysql", "mariadb": "mysql"}

# Node classes that must not appear anywhere in an accepted tree, with the keyword shown to the user.
# Looked up by name so that a sqlglot release lacking one of them does not break the import.
_FORBIDDEN_NAMES: dict[str, str] = {
    "Insert": "INSERT", "Update": "UPDATE", "Delete": "DELETE", "Merge": "MERGE", "Create": "CREATE",
    "Drop": "DROP", "Alter": "ALTER", "Pragma": "PRAGMA", "Attach": "ATTACH", "Detach": "DETACH",
    "Transaction": "BEGIN/TRANSACTION", "Commit": "COMMIT", "Rollback": "ROLLBACK", "Set": "SET",
    "Copy": "COPY", "Grant": "GRANT", "Revoke": "REVOKE", "TruncateTable": "TRUNCATE", "Use": "USE",
    "Analyze": "ANALYZE", "Cache": "CACHE", "Uncache": "UNCACHE", "Refresh": "REFRESH", "Comment": "COMMENT",
    "Kill": "KILL", "LoadData": "LOAD DATA", "Into": "SELECT ... INTO", "Lock": "a locking clause (FOR UPDATE)",
    "Declare": "DECLARE", "Execute": "EXECUTE", "Export": "EXPORT", "Command": "COMMAND",
}
_FORBIDDEN: tuple[type[exp.Expr], ...] = tuple(
    getattr(exp, name) for name in _FORBIDDEN_NAMES if isinstance(getattr(exp, name, None), type)
)

_DANGEROUS_FUNCTIONS = frozenset({
    # SQLite (extension loading, shell file I/O, tokenizer pointer tricks)
    "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer",
    # PostgreSQL (sleeping, server files, large objects, remote/dynamic SQL, server control, sequences)
    "pg_sleep", "pg_sleep_for", "pg_sleep_until", "pg_read_file", "pg_read_binary_file", "pg_ls_dir",
    "pg_stat_file", "pg_ls_logdir", "pg_ls_waldir", "lo_import", "lo_export", "lo_from_bytea", "lo_put",
    "lo_create", "lo_unlink", "dblink", "dblink_exec", "dblink_connect", "query_to_xml",
    "query_to_xml_and_xmlschema", "query_to_xmlschema", "pg_terminate_backend", "pg_cancel_backend",
    "pg_reload_conf", "pg_rotate_logfile", "set_config", "nextval", "setval", "pg_advisory_lock",
    "pg_advisory_xact_lock", "pg_switch_wal", "pg_create_restore_point", "pg_notify",
    # ... functions that write WAL, server files, statistics, slots or large objects from inside a SELECT
    # (pg_logical_emit_message even runs for an unprivileged role in a read-only transaction)
    "pg_logical_emit_message", "pg_file_write", "pg_file_unlink", "pg_file_rename", "pg_file_sync",
    "pg_stat_reset", "pg_stat_reset_shared", "pg_stat_reset_single_table_counters",
    "pg_stat_reset_single_function_counters", "pg_stat_reset_slru", "pg_stat_reset_replication_slot",
    "pg_create_logical_replication_slot", "pg_create_physical_replication_slot", "pg_drop_replication_slot",
    "pg_copy_logical_replication_slot", "pg_copy_physical_replication_slot", "pg_replication_slot_advance",
    "pg_replication_origin_create", "pg_replication_origin_drop", "pg_import_system_collations", "pg_promote",
    "pg_backup_start", "pg_backup_stop", "pg_start_backup", "pg_stop_backup", "pg_wal_replay_pause",
    "pg_wal_replay_resume", "lo_truncate", "lo_truncate64", "lo_open", "lowrite",
    # MySQL
    "sleep", "benchmark", "load_file", "get_lock",
})
_DANGEROUS_PACKAGE_PREFIXES = ("dbms_", "utl_")  # Oracle PL/SQL packages (DBMS_PIPE, UTL_HTTP, ...)

_TOKEN_RE = re.compile(r"<Token token_type: TokenType\.(\w+), text: ([^,]*),[^>]*>")
_CLASS_RE = re.compile(r"<class '(?:\w+\.)*(\w+)'>")


@dataclass(frozen=True)
class GuardResult:
    """Verdict of :func:`guard_sql`.

    ``ok`` is True when the statement may run; ``sql`` is then the single statement exactly as written
    (leading comments and trailing semicolons/whitespace removed; never re-generated, so dialect details
    are preserved). On rejection ``sql`` is the stripped input and ``error`` a short human-readable reason.
    """

    ok: bool
    sql: str
    error: str | None = None


def sqlglot_dialect(sqlalchemy_dialect_name: str) -> str:
    """Map a SQLAlchemy dialect name ("postgresql", "sqlite", "oracle", "mysql") to sqlglot's name.

    Unknown names are returned lower-cased unchanged (sqlglot will reject them later if unsupported).
    """
    name = sqlalchemy_dialect_name.lower().split("+", 1)[0]
    return _SQLGLOT_DIALECTS.get(name, name)


MAX_SQL_CHARS = 20_000
"""Longer statements are refused before parsing (parse time grows with size; no analyst query is this long)."""
MAX_NESTING = 30
"""Deeper nesting of parentheses, CASE, NOT or unary signs is refused before parsing (the parser recurses)."""
MAX_ERROR_CHARS = 300
"""Error messages are cut to this length (they may quote the input)."""

_NESTING_TOKENS = re.compile(r"\(|\)|\bcase\b|\bend\b|\bnot\b|\band\b|\bor\b|,|[-+~]", re.IGNORECASE)


def nesting_depth(text: str) -> int:
    """An upper bound of the statement's nesting: open parentheses and CASE, plus chained NOTs and unary signs.

    Quoted strings and identifiers are left out; a sign after an operand (``a - b``) is binary and does not
    count; AND, OR and commas end a chain. Linear in the length of ``text``.
    """
    plain = re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", "''", text)
    depth = best = chain = 0
    for match in _NESTING_TOKENS.finditer(plain):
        token = match.group(0).lower()
        if token in ("(", "case"):
            depth += 1
            chain = 0
        elif token in (")", "end"):
            depth = max(0, depth - 1)
            chain = 0
        elif token in ("and", "or", ","):
            chain = 0
        elif token == "not":
            chain += 1
        else:  # a sign: unary unless it follows an operand
            before = plain[: match.start()].rstrip()[-1:]
            if not (before.isalnum() or before in ("_", ")", "]", "'", '"')):
                chain += 1
        best = max(best, depth + chain)
    return best


def guard_sql(sql: str, dialect: str) -> GuardResult:
    """Accept ``sql`` only if it is exactly one read-only query in sqlglot ``dialect``.

    Never raises: parse errors, empty input, input over :data:`MAX_SQL_CHARS` or nested deeper than
    :data:`MAX_NESTING`, multiple statements, non-query roots, forbidden nodes anywhere in the tree (including
    CTEs and subqueries), SELECT ... INTO, locking clauses and dangerous functions all yield
    ``GuardResult(ok=False, error=...)``; a parenthesised query comes back without its parentheses.
    """
    text = (sql or "").strip()
    try:
        result = _guard(text, dialect)
    except RecursionError:
        result = GuardResult(False, text, "The query is nested too deeply to check; simplify it.")
    except Exception as err:  # the guard's promise: a refusal, never an exception
        result = GuardResult(False, text, f"The query could not be checked: {type(err).__name__}")
    if result.error and len(result.error) > MAX_ERROR_CHARS:
        result = GuardResult(result.ok, result.sql, result.error[: MAX_ERROR_CHARS - 3] + "...")
    return result


def _guard(text: str, dialect: str) -> GuardResult:
    if len(text) > MAX_SQL_CHARS:
        return GuardResult(False, text[:200], f"The query is too long ({len(text):,} characters; at most "
                                              f"{MAX_SQL_CHARS:,}).")
    if nesting_depth(text) > MAX_NESTING:
        return GuardResult(False, text, f"The query is nested too deeply (more than {MAX_NESTING} levels).")
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect) if s is not None]
    except ParseError as err:
        return GuardResult(False, text, _parse_error_message(err))
    except TokenError:
        return GuardResult(False, text, "SQL could not be tokenized: unterminated string, quote or comment?")
    except SqlglotError as err:
        return GuardResult(False, text, f"SQL could not be parsed: {str(err).splitlines()[0]}")
    except (ValueError, KeyError) as err:  # unknown dialect name and similar
        return GuardResult(False, text, f"SQL could not be parsed: {err}")
    statements = [s for s in statements if not isinstance(s, exp.Semicolon)]
    if not statements:
        return GuardResult(False, text, "Empty query: write one SELECT statement.")
    if len(statements) > 1:
        return GuardResult(False, text, f"Only one statement is allowed; found {len(statements)}.")
    root = statements[0]
    error = _check_root(root, text, dialect) or _check_tree(root, dialect)
    if error:
        return GuardResult(False, text, error)
    if isinstance(root, exp.Subquery):  # "(SELECT 1)": valid in some engines only; run the query itself
        return GuardResult(True, root.unnest().sql(dialect=dialect), None)
    return GuardResult(True, _statement_text(text, dialect), None)


def _check_root(root: exp.Expr, text: str, dialect: str) -> str | None:
    """Error message unless ``root`` is a query (SELECT / set operation / parenthesised query)."""
    node = root.unnest() if isinstance(root, exp.Subquery) else root
    if isinstance(node, (exp.Select, exp.SetOperation)):
        return None
    if isinstance(node, (*_FORBIDDEN, exp.Command)):
        found = _describe(node)
    else:  # a statement sqlglot read as a bare expression, e.g. SAVEPOINT s1 -> Alias
        found = _statement_text(text, dialect).split(maxsplit=1)[0].upper()
    return f"Only read-only SELECT statements are allowed; found {found}."


def _check_tree(root: exp.Expr, dialect: str) -> str | None:
    """Error message for the first forbidden node or dangerous function anywhere under ``root``."""
    for node in root.walk():
        if isinstance(node, _FORBIDDEN):
            return f"Only read-only SELECT statements are allowed; found {_describe(node)}."
        if isinstance(node, exp.Select) and node.args.get("into"):
            return "Only read-only SELECT statements are allowed; found SELECT ... INTO."
        if isinstance(node, exp.Select) and node.args.get("locks"):
            return "Locking clauses such as FOR UPDATE are not allowed."
        if isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name in _DANGEROUS_FUNCTIONS or name.startswith(_DANGEROUS_PACKAGE_PREFIXES):
                return f"Function {name.upper()} is not allowed in read-only queries."
        if isinstance(node, exp.Dot):
            for part in node.this.find_all(exp.Identifier):
                if part.name.lower().startswith(_DANGEROUS_PACKAGE_PREFIXES):
                    return f"Package {part.name.upper()} is not allowed in read-only queries."
        if dialect == "oracle" and isinstance(node, exp.Column) and node.table.lower().startswith(
            _DANGEROUS_PACKAGE_PREFIXES
        ):
            return f"Package {node.table.upper()} is not allowed in read-only queries."
    return None


def _describe(node: exp.Expr) -> str:
    """Keyword naming ``node`` in messages, e.g. "DELETE", "VACUUM" (for fallback commands)."""
    if isinstance(node, exp.Command):
        return str(node.this).upper() or "COMMAND"
    return _FORBIDDEN_NAMES.get(type(node).__name__, type(node).__name__.upper())


def _statement_text(text: str, dialect: str) -> str:
    """The statement's source text: from its first token to its last non-semicolon token."""
    try:
        tokens = [t for t in sqlglot.Dialect.get_or_raise(dialect).tokenize(text)
                  if t.token_type != TokenType.SEMICOLON]
    except SqlglotError:
        return text.rstrip().rstrip(";").rstrip()
    if not tokens:
        return text
    return text[tokens[0].start : tokens[-1].end + 1]


def _parse_error_message(err: ParseError) -> str:
    """Short one-line message from a sqlglot ParseError (no ANSI codes, no token reprs)."""
    if not err.errors:
        return f"SQL syntax error: {str(err).splitlines()[0]}"
    first = err.errors[0]

    def token_text(match: re.Match[str]) -> str:
        return "end of input" if match.group(1) == "SENTINEL" else repr(match.group(2))

    description = _TOKEN_RE.sub(token_text, str(first.get("description", "invalid syntax")))
    description = _CLASS_RE.sub(lambda m: m.group(1).upper(), description)
    near = str(first.get("highlight") or "").strip()
    where = f" at line {first.get('line')}, col {first.get('col')}"
    return f"SQL syntax error{where}: {description}" + (f" (near {near!r})" if near else "")
