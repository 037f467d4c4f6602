"""A hostile SQL corpus, generated from templates, for proving the read-only walls (guard + connection).

:func:`corpus` returns, for ``"sqlite"`` or ``"postgres"``, several hundred :class:`Hostile` statements built by
crossing a few lists: base payloads (writes, DDL, session and admin statements, dangerous function calls) x
target tables, core payloads x disguises (letter case, whitespace, comments, stacking, CTE and subquery wrappers,
EXPLAIN, unicode lookalikes), quote and comment tricks x payloads, resource bombs, deep nesting of six kinds at
depths 10..200, and very long input (100k+ characters). The statements target Chinook's tables (``Artist``,
``Genre``, ``MediaType``, ``Playlist``: each has ``<Table>Id`` and ``Name``; PostgreSQL folds the names to the
lower-case tables of the test cluster). ``scratch`` is a directory path that file-writing payloads aim at, so a
test can check afterwards that nothing was written there.

``must_refuse`` marks statements the guard itself must refuse (anything that is not one read-only query);
the others (string/comment tricks that are plain SELECTs, resource bombs, nesting, long input) may instead
run, as long as they stay within the limits or end with a clean error value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

TABLES = ("Artist", "Genre", "MediaType", "Playlist")
NESTING_DEPTHS = (10, 20, 29, 30, 31, 50, 100, 150, 200)


@dataclass(frozen=True)
class Hostile:
    """One corpus statement: ``category`` (e.g. "write", "disguise:stacked"), the ``sql`` text, and whether
    the guard alone must refuse it (``must_refuse``)."""

    category: str
    sql: str
    must_refuse: bool = True


# Templates: {t} a table, {s} the scratch directory.
_WRITES = [
    "INSERT INTO {t} ({t}Id, Name) VALUES (9999, 'x')", "INSERT INTO {t} SELECT * FROM {t}",
    "INSERT INTO {t} ({t}Id, Name) SELECT {t}Id + 100000, Name FROM {t}",
    "INSERT INTO {t} VALUES (1, 'x') ON CONFLICT ({t}Id) DO UPDATE SET Name = 'x'",
    "INSERT INTO {t} VALUES (1, 'x') ON CONFLICT DO NOTHING", "UPDATE {t} SET Name = 'x'",
    "UPDATE {t} SET Name = upper(Name) WHERE {t}Id = 1", "DELETE FROM {t}", "DELETE FROM {t} WHERE {t}Id > 0",
    "DELETE FROM {t} WHERE {t}Id IN (SELECT {t}Id FROM {t})", "DELETE FROM {t} RETURNING *",
    "UPDATE {t} SET Name = 'x' RETURNING {t}Id",
]
_WRITES_DIALECT = {
    "sqlite": ["INSERT OR REPLACE INTO {t} VALUES (1, 'x')", "REPLACE INTO {t} VALUES (1, 'x')",
               "INSERT OR IGNORE INTO {t} VALUES (1, 'x')", "UPDATE OR ROLLBACK {t} SET Name = NULL"],
    "postgres": ["TRUNCATE {t}", "TRUNCATE TABLE {t} CASCADE",
                 "MERGE INTO {t} AS d USING {t} AS s ON d.{t}Id = s.{t}Id WHEN MATCHED THEN DELETE",
                 "UPDATE {t} SET Name = 'x' FROM {t} AS o WHERE o.{t}Id = {t}.{t}Id",
                 "DELETE FROM {t} USING {t} AS o WHERE o.{t}Id = {t}.{t}Id"],
}
_DDL = [
    "CREATE TABLE h_{t} (a INTEGER)", "CREATE TABLE h_{t} AS SELECT * FROM {t}",
    "CREATE TEMP TABLE h_{t} AS SELECT * FROM {t}", "CREATE TEMPORARY TABLE h_{t} (a INTEGER)",
    "CREATE VIEW h_{t} AS SELECT * FROM {t}", "CREATE TEMP VIEW h_{t} AS SELECT 1",
    "CREATE INDEX h_{t} ON {t} (Name)", "CREATE UNIQUE INDEX IF NOT EXISTS h_{t} ON {t} ({t}Id)",
    "DROP TABLE {t}", "DROP TABLE IF EXISTS {t}", "DROP VIEW IF EXISTS h_{t}", "DROP INDEX IF EXISTS h_{t}",
    "ALTER TABLE {t} ADD COLUMN z TEXT", "ALTER TABLE {t} RENAME TO h_{t}",
    "ALTER TABLE {t} RENAME COLUMN Name TO z", "ALTER TABLE {t} DROP COLUMN Name",
]
_DDL_DIALECT = {
    "sqlite": ["CREATE TRIGGER h_{t} AFTER INSERT ON {t} BEGIN DELETE FROM {t}; END",
               "CREATE TEMP TRIGGER h_{t} BEFORE UPDATE ON {t} BEGIN SELECT RAISE(IGNORE); END",
               "DROP TRIGGER IF EXISTS h_{t}", "CREATE VIRTUAL TABLE h_{t} USING fts5(a)", "REINDEX {t}",
               "ANALYZE {t}"],
    "postgres": ["CREATE TRIGGER h_{t} AFTER INSERT ON {t} FOR EACH ROW EXECUTE FUNCTION h()",
                 "CREATE MATERIALIZED VIEW h_{t} AS SELECT * FROM {t}", "CREATE UNLOGGED TABLE h_{t} (a int)",
                 "CREATE RULE h_{t} AS ON INSERT TO {t} DO INSTEAD NOTHING", "COMMENT ON TABLE {t} IS 'x'",
                 "GRANT ALL ON {t} TO PUBLIC", "REVOKE SELECT ON {t} FROM nl2sql_ro", "LOCK TABLE {t}",
                 "ALTER TABLE {t} OWNER TO nl2sql_ro", "CLUSTER {t}", "REINDEX TABLE {t}", "VACUUM FULL {t}",
                 "ANALYZE {t}", "CREATE POLICY h_{t} ON {t} USING (false)", "SELECT * INTO h_{t} FROM {t}"],
}
_ADMIN = {
    "sqlite": [
        "ATTACH DATABASE '{s}/h.db' AS h", "ATTACH ':memory:' AS m", "ATTACH 'file:{s}/u.db?mode=rwc' AS u",
        "DETACH DATABASE h", "DETACH h", "PRAGMA writable_schema = ON", "PRAGMA query_only = OFF",
        "PRAGMA query_only = 0", "PRAGMA journal_mode = DELETE", "PRAGMA user_version = 7",
        "PRAGMA schema_version = 1", "PRAGMA main.page_size = 1024", "PRAGMA foreign_keys = OFF",
        "PRAGMA trusted_schema = ON", "PRAGMA table_info(Artist)", "PRAGMA integrity_check", "VACUUM",
        "VACUUM main", "VACUUM INTO '{s}/copy.db'", "REINDEX", "ANALYZE", "BEGIN", "BEGIN IMMEDIATE",
        "BEGIN EXCLUSIVE TRANSACTION", "BEGIN DEFERRED", "COMMIT", "END TRANSACTION", "ROLLBACK",
        "SAVEPOINT s1", "RELEASE s1", "RELEASE SAVEPOINT s1", "ROLLBACK TO s1", "EXPLAIN DELETE FROM Artist",
        "EXPLAIN QUERY PLAN DROP TABLE Artist", "SELECT * INTO h FROM Artist", "SELECT * FROM Artist FOR UPDATE",
    ],
    "postgres": [
        "COPY artist TO PROGRAM 'id'", "COPY artist FROM PROGRAM 'id'", "COPY (SELECT 1) TO '{s}/h.csv'",
        "COPY artist FROM '/etc/passwd'", "COPY artist TO STDOUT", "COPY (SELECT 1) TO PROGRAM 'touch {s}/p'",
        "SET ROLE postgres", "SET SESSION AUTHORIZATION postgres", "RESET ROLE", "SET ROLE NONE",
        "SET default_transaction_read_only = off", "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        "SET TRANSACTION READ WRITE", "SET statement_timeout = 0", "SET LOCAL work_mem = '1GB'", "RESET ALL",
        "DISCARD ALL", "SHOW ALL", "LISTEN h", "NOTIFY h, 'x'", "UNLISTEN *", "LOAD 'plpgsql'", "CHECKPOINT",
        "VACUUM", "ANALYZE", "PREPARE h AS DELETE FROM artist", "EXECUTE h", "DEALLOCATE ALL",
        "DECLARE c CURSOR FOR SELECT 1", "FETCH ALL FROM c", "CLOSE c", "CALL h()",
        "DO $$ BEGIN DELETE FROM artist; END $$", "DO 'BEGIN DROP TABLE artist; END'",
        "CREATE EXTENSION dblink", "CREATE EXTENSION IF NOT EXISTS adminpack", "DROP EXTENSION plpgsql",
        "ALTER SYSTEM SET work_mem = '1GB'", "CREATE ROLE h SUPERUSER LOGIN", "ALTER ROLE nl2sql_ro SUPERUSER",
        "DROP ROLE nl2sql_ro", "CREATE DATABASE h", "DROP DATABASE markets",
        "ALTER DATABASE chinook SET default_transaction_read_only = off", "CREATE SCHEMA h", "CREATE SEQUENCE h",
        "CREATE FUNCTION h() RETURNS int LANGUAGE sql AS 'SELECT 1'", "DROP FUNCTION IF EXISTS h",
        "CREATE PUBLICATION h FOR ALL TABLES", "BEGIN", "BEGIN READ WRITE", "START TRANSACTION READ WRITE",
        "COMMIT", "ROLLBACK", "END", "ABORT", "SAVEPOINT s1", "RELEASE SAVEPOINT s1", "ROLLBACK TO SAVEPOINT s1",
        "PREPARE TRANSACTION 'x'", "COMMIT PREPARED 'x'", "EXPLAIN ANALYZE DELETE FROM artist",
        "SELECT * FROM artist FOR UPDATE", "SELECT * FROM artist FOR NO KEY UPDATE SKIP LOCKED",
        "SELECT * FROM artist FOR SHARE",
    ],
}
_CALLS = {
    "sqlite": ["load_extension('{s}/evil.so')", "load_extension('libc.so.6', 'system')", "LOAD_EXTENSION('x')",
               "readfile('/etc/passwd')", "writefile('{s}/w', 'x')", "edit('x')", "fts3_tokenizer('simple')"],
    "postgres": [
        "pg_read_file('/etc/passwd')", "pg_read_binary_file('/etc/passwd')", "pg_ls_dir('.')",
        "pg_stat_file('.')", "lo_import('/etc/passwd')", "lo_export(1, '{s}/lo')", "lo_from_bytea(0, 'x')",
        "lo_create(0)", "lo_unlink(1)", "lo_put(1, 0, 'x')", "set_config('default_transaction_read_only', 'off', false)",
        "set_config('role', 'postgres', false)", "dblink('dbname=chinook', 'DELETE FROM artist')",
        "dblink_exec('dbname=chinook', 'DROP TABLE artist')", "dblink_connect('h', 'dbname=chinook')",
        "pg_sleep(30)", "pg_terminate_backend(pg_backend_pid())", "pg_cancel_backend(1)", "pg_reload_conf()",
        "nextval('h')", "setval('h', 1)", "query_to_xml('DELETE FROM artist', true, true, '')",
        "pg_advisory_lock(1)", "pg_notify('h', 'x')", "pg_catalog.pg_read_file('/etc/passwd')",
        "\"pg_read_file\"('/etc/passwd')", "PG_READ_FILE('/etc/passwd')", "public.dblink('x', 'y')",
        "pg_logical_emit_message(true, 'h', 'x')", "pg_stat_reset()", "pg_file_write('{s}/f', 'x', false)",
        "pg_create_logical_replication_slot('h', 'test_decoding')", "pg_drop_replication_slot('h')",
        "pg_import_system_collations('pg_catalog')", "pg_promote()", "lo_truncate(0, 0)",
    ],
}
_CALL_WRAPPERS = ["SELECT {f}", "SELECT * FROM Artist WHERE ArtistId IN (SELECT {f})", "SELECT (SELECT {f}) AS x",
                  "WITH x AS (SELECT {f} AS v) SELECT * FROM x", "SELECT Name FROM Artist ORDER BY {f}"]

_CORE = {
    "sqlite": ["DELETE FROM Artist", "DROP TABLE Artist", "UPDATE Artist SET Name = 'x'",
               "INSERT INTO Artist (ArtistId, Name) VALUES (9999, 'x')", "CREATE TABLE h (a INT)",
               "PRAGMA writable_schema = 1", "ATTACH DATABASE '{s}/h.db' AS h", "VACUUM INTO '{s}/v.db'",
               "ALTER TABLE Artist RENAME TO h", "REPLACE INTO Artist VALUES (1, 'x')", "BEGIN IMMEDIATE",
               "CREATE TEMP VIEW h AS SELECT 1"],
    "postgres": ["DELETE FROM Artist", "DROP TABLE Artist", "UPDATE Artist SET Name = 'x'",
                 "INSERT INTO Artist (ArtistId, Name) VALUES (9999, 'x')", "CREATE TABLE h (a INT)",
                 "COPY artist TO PROGRAM 'touch {s}/p'", "SET ROLE postgres",
                 "SET default_transaction_read_only = off", "CREATE EXTENSION dblink", "TRUNCATE artist",
                 "ALTER ROLE nl2sql_ro SUPERUSER", "DO $$ BEGIN DELETE FROM artist; END $$"],
}
_DML_CORE = ["DELETE FROM Artist", "UPDATE Artist SET Name = 'x'",
             "INSERT INTO Artist (ArtistId, Name) VALUES (9999, 'x')", "DELETE FROM Genre WHERE GenreId = 1"]


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _alternate(text: str) -> str:
    return "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(text))


def _first_word(p: str, change: Callable[[str], str]) -> str:
    word, _, rest = p.partition(" ")
    return f"{change(word)} {rest}"


_DISGUISES: dict[str, Callable[[str], str]] = {
    "case:lower": str.lower, "case:upper": str.upper, "case:alternating": _alternate, "case:swap": str.swapcase,
    "space:tabs": lambda p: p.replace(" ", "\t"), "space:newlines": lambda p: p.replace(" ", "\n"),
    "space:crlf": lambda p: p.replace(" ", "\r\n"), "space:formfeed": lambda p: p.replace(" ", "\f"),
    "space:wide": lambda p: "  \n\t " + p.replace(" ", "   ") + " \n\t ",
    "comment:lead-block": lambda p: f"/* read-only SELECT */ {p}", "comment:lead-line": lambda p: f"-- SELECT\n{p}",
    "comment:inline": lambda p: p.replace(" ", "/**/"), "comment:trail": lambda p: f"{p} -- SELECT 1",
    "comment:nested-lead": lambda p: f"/* a /* b */ c */ {p}", "comment:semicolons": lambda p: f"{p};;;",
    "stacked:after": lambda p: f"SELECT 1; {p}", "stacked:tight": lambda p: f"SELECT 1;{p}",
    "stacked:before": lambda p: f"{p}; SELECT 1", "stacked:line-comment": lambda p: f"SELECT 1 -- x\n; {p}",
    "stacked:block-comment": lambda p: f"SELECT 1 /* ; */; {p}", "stacked:string": lambda p: f"SELECT 'a;b'; {p}",
    "stacked:newline": lambda p: f"SELECT * FROM Artist\n;\n{p}\n;", "stacked:empty": lambda p: f";;{p}",
    "wrap:cte": lambda p: f"WITH x AS (SELECT 1) {p}", "wrap:parens": lambda p: f"({p})",
    "wrap:subquery": lambda p: f"SELECT * FROM ({p}) AS s", "wrap:exists": lambda p: f"SELECT EXISTS ({p})",
    "wrap:union": lambda p: f"SELECT 1 UNION ALL {p}", "wrap:explain": lambda p: f"EXPLAIN {p}",
    "unicode:fullwidth-keyword": lambda p: _first_word(p, _fullwidth), "unicode:bom": lambda p: "\ufeff" + p,
    "unicode:zero-width": lambda p: _first_word(p, lambda w: w[:2] + "\u200b" + w[2:]),
    "unicode:nbsp": lambda p: p.replace(" ", "\u00a0"),
    "unicode:cyrillic-select": lambda p: f"S\u0415LECT 1; {p}",
    "unicode:greek-question-mark": lambda p: f"SELECT 1\u037e {p}",
    "unicode:fullwidth-semicolon": lambda p: f"SELECT 1\uff1b {p}",
}

# (template with {p} a payload, must_refuse per dialect): quote and comment tricks.
_TRICKS: list[tuple[str, dict[str, bool]]] = [
    ("SELECT 'x'';{p};--'", {"sqlite": False, "postgres": False}),
    ("SELECT 'x''';{p};--'", {"sqlite": True, "postgres": True}),
    ("SELECT 'a\\';{p};--'", {"sqlite": False, "postgres": True}),
    ("SELECT E'\\'';{p};--'", {"sqlite": False, "postgres": True}),  # SQLite: column E, alias '\'';...;--'
    ("SELECT E'\\\\';{p};--'", {"sqlite": True, "postgres": True}),
    ("SELECT \"a\"\";{p};--\"", {"sqlite": False, "postgres": False}),
    ("SELECT `a`;{p}", {"sqlite": True, "postgres": True}),
    ("SELECT [a;{p}]", {"sqlite": False, "postgres": True}),
    ("SELECT $$;{p};$$", {"sqlite": True, "postgres": False}),
    ("SELECT $a$ $$ ;{p}; $a$", {"sqlite": True, "postgres": False}),
    ("SELECT 1 AS a$$, 2;{p};SELECT $$", {"sqlite": True, "postgres": True}),
    ("SELECT 1 /* /* */;{p};-- */", {"sqlite": True, "postgres": False}),
    ("SELECT 1 -- \r;{p}", {"sqlite": False, "postgres": True}),
    ("SELECT 1 --\u2028;{p}", {"sqlite": False, "postgres": False}),
    ("SELECT '--', ';{p}'", {"sqlite": False, "postgres": False}),
    ("SELECT U&'\\0027';{p}", {"sqlite": True, "postgres": True}),
    ("SELECT x'27';{p}", {"sqlite": True, "postgres": True}),
    ("SELECT Name FROM Artist WHERE Name = '{q}'", {"sqlite": False, "postgres": False}),
]


def _bombs(dialect: str) -> list[str]:
    recursive = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
    common = [recursive + "SELECT i FROM r", recursive + "SELECT count(*) FROM r",
              "SELECT count(*) FROM Track a, Track b, Track c", "SELECT * FROM Track a CROSS JOIN Track b",
              "SELECT a.Name, b.Name, c.Name FROM Track a, Track b, Track c",
              "SELECT count(*) FROM Track a, Track b WHERE a.Name LIKE '%' || b.Name || '%'"]
    if dialect == "sqlite":
        return common + [
            "SELECT randomblob(1000000) FROM Track", "SELECT zeroblob(1000000000)", "SELECT randomblob(2000000000)",
            "SELECT printf('%.*c', 1000000000, 'x')", "SELECT printf('%2000000000d', 1)",
            "SELECT printf('%0*d', 1000000000, 1)", "SELECT hex(zeroblob(4000000))",
            "SELECT replace(hex(zeroblob(4000000)), '0', 'xyz')",
            "SELECT group_concat(hex(randomblob(1000))) FROM Track a, Track b",
            "SELECT count(*) FROM generate_series(1, 1000000000000)",
            "SELECT like('%a%a%a%a%a%a%a%a%a%a%b', a.Name || b.Name) FROM Track a, Track b"]
    return common + [
        "SELECT repeat('x', 1073741824)", "SELECT repeat('x', 20000000)", "SELECT lpad('x', 2000000000, 'y')",
        "SELECT format('%2000000000s', 'x')", "SELECT generate_series(1, 1000000000000)",
        "SELECT count(*) FROM (SELECT generate_series(1, 1000000000000)) AS s",
        "SELECT repeat('ab', 1000) FROM generate_series(1, 100000000)",
        "SELECT regexp_replace(repeat('a', 100000), '(a*)*b', 'x')", "SELECT md5(repeat('x', 100000000))"]


def _nesting() -> list[Hostile]:
    kinds: dict[str, Callable[[int], str]] = {
        "parentheses": lambda d: "SELECT " + "(" * d + "1" + ")" * d,
        "functions": lambda d: "SELECT " + "abs(" * d + "1" + ")" * d,
        "case": lambda d: "SELECT " + "CASE WHEN 1 = 1 THEN " * d + "1" + " END" * d,
        "not": lambda d: "SELECT " + "NOT " * d + "1",
        "unary-minus": lambda d: "SELECT " + "- " * d + "1",
        "scalar-subqueries": lambda d: "SELECT " + "(SELECT " * d + "1" + ")" * d,
    }
    out = [Hostile(f"nesting:{k}", make(d), False) for k, make in kinds.items() for d in NESTING_DEPTHS]
    for d in NESTING_DEPTHS:  # nesting hidden from a text-level counter by comments and escaped quotes
        out.append(Hostile("nesting:comment-masked", "SELECT " + "(/*)*/" * d + "1" + ")" * d, False))
        out.append(Hostile("nesting:string-masked", "SELECT E'\\'', " + "(" * d + "1" + ")" * d + ", ''", False))
    return out


def _long_inputs() -> list[Hostile]:
    n = 100_000
    texts = [  # (text, must_refuse)
        ("SELECT '" + "x" * n + "'", False), ("SELECT 1 + " + " + ".join(["1"] * 200_000), False),
        ("SELECT 1" + " " * n, False), ("SELECT 1 /*" + "x" * n + "*/", False),
        ("SELECT 1; " + "DROP TABLE Artist; " * 10_000, True),
        ("SELECT * FROM Artist WHERE ArtistId IN (" + ",".join(map(str, range(30_000))) + ")", False),
        ("-- x\n" * 30_000 + "DROP TABLE Artist", True), ('SELECT "' + "a" * n + '" FROM Artist', False),
        ("SELECT " + "x" * 150_000, False), ("SELECT " + " UNION ALL SELECT ".join(["1"] * 20_000), False),
        ("SELECT '" + "\u20ac" * 50_000 + "'", False), ("SELECT " + " OR ".join(["1 = 1"] * 40_000), False),
        ("DELETE FROM Artist WHERE " + " OR ".join(["ArtistId = 1"] * 10_000), True),
        # just under the guard's length limit: parsed, then left to the engine's own limits
        ("SELECT 1 + " + " + ".join(["1"] * 4_500), False),
        ("SELECT count(*) FROM Artist WHERE ArtistId IN (" + ",".join(map(str, range(3_500))) + ")", False),
        ("SELECT " + " UNION ALL SELECT ".join(["1"] * 1_000), False),
        ("SELECT CASE" + " WHEN 1 = 2 THEN 1" * 1_100 + " END", False),
        ("SELECT 1 AS a" + " " * 19_000 + "; DROP TABLE Artist", True),
    ]
    return [Hostile("long-input", text, refuse) for text, refuse in texts]


def corpus(dialect: str, scratch: str = "/nonexistent") -> list[Hostile]:
    """All hostile statements for ``dialect`` ("sqlite" or "postgres"), deterministic, over 500 of them.

    Raises KeyError for another dialect.
    """
    def fill(template: str, t: str = "Artist") -> str:
        return template.replace("{t}", t).replace("{s}", scratch)

    out = [Hostile("write", fill(w, t)) for w in _WRITES + _WRITES_DIALECT[dialect] for t in TABLES]
    out += [Hostile("ddl", fill(d, t)) for d in _DDL + _DDL_DIALECT[dialect] for t in TABLES]
    out += [Hostile("admin", fill(a)) for a in _ADMIN[dialect]]
    out += [Hostile("call", w.replace("{f}", fill(f))) for f in _CALLS[dialect] for w in _CALL_WRAPPERS]
    cores = [fill(c) for c in _CORE[dialect]]
    # FROM (BEGIN IMMEDIATE) reads as a table "BEGIN" aliased IMMEDIATE: a plain SELECT, for the engines too
    out += [Hostile(f"disguise:{name}", change(core), not (name == "wrap:subquery" and len(core.split()) == 2))
            for name, change in _DISGUISES.items() for core in cores]
    out += [Hostile("cte-write", f"WITH x AS (SELECT {t}Id FROM {t}) {fill(d, t)}") for d in _WRITES for t in TABLES[:2]]
    out += [Hostile("cte-write", f"WITH x AS ({d} RETURNING *) SELECT * FROM x") for d in _DML_CORE]
    out += [Hostile("cte-write", f"WITH RECURSIVE x(n) AS (SELECT 1) SELECT * FROM ({d} RETURNING *) AS y")
            for d in _DML_CORE]
    quote_free = [c for c in cores if "'" not in c][:4]  # a payload's own quotes would change the trick
    for template, refuse in _TRICKS:
        for core in quote_free:
            sql = template.replace("{p}", core).replace("{q}", core.replace("'", "''"))
            out.append(Hostile("trick", sql, refuse[dialect]))
    out += [Hostile("bomb", b, False) for b in _bombs(dialect)]
    out += _nesting() + _long_inputs()
    return list({h.sql: h for h in out}.values())
