"""The application's error types: each names the real cause, the remedy and the command's exit code.

Exit-code rule (the CLI follows it for every command):

* ``0`` (:data:`EXIT_OK`): the command did its work;
* ``1`` (:data:`EXIT_FAILED`): the command ran, but its result is a failure (no answer, a refused or failing
  statement, nothing to write);
* ``2`` (:data:`EXIT_SETUP`): bad usage or configuration: something the command needs before it can work
  (arguments, settings, database, index, model endpoint, state store, disk) is missing, broken or unreachable;
  fix it as the message says and run the command again;
* ``130`` (:data:`EXIT_INTERRUPTED`): interrupted (Ctrl-C).

:func:`classify` turns a foreign exception (``sqlite3``, SQLAlchemy, ``OSError``, Pydantic, Chroma) into the
matching :class:`NL2SQLError` so that a caller shows one clear line instead of a traceback.
"""

from __future__ import annotations

import errno
import re
from typing import Any, ClassVar

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_SETUP = 2
EXIT_INTERRUPTED = 130


class NL2SQLError(Exception):
    """Base of the application's errors: ``message`` (the cause) plus ``remedy`` (what to do), and an exit code.

    Args:
        message: what went wrong, naming the real cause (a file, a URL, an error text).
        remedy: what the user should do; defaults to the class's :attr:`default_remedy`.
    """

    exit_code: ClassVar[int] = EXIT_SETUP
    default_remedy: ClassVar[str] = ""

    def __init__(self, message: str, *, remedy: str | None = None) -> None:
        """Keep ``message`` and ``remedy`` (see the class docstring)."""
        self.message = " ".join(str(message).split())
        self.remedy = self.default_remedy if remedy is None else remedy
        super().__init__(self.message)

    def __str__(self) -> str:
        """``"<message>. <remedy>"`` on one line."""
        if not self.remedy:
            return self.message
        return f"{self.message.rstrip('.')}. {self.remedy}"

    def to_json(self) -> dict[str, Any]:
        """``{"status": "error", "error", "kind", "remedy", "exit_code"}`` for ``--json`` output."""
        return {"status": "error", "error": str(self), "kind": type(self).__name__, "remedy": self.remedy,
                "exit_code": self.exit_code}


class ConfigurationError(NL2SQLError):
    """A setting or argument is invalid or points at something that does not exist (exit 2)."""

    default_remedy = "Check the settings (NL2SQL_* variables, nl2sql.toml) and the command's arguments."


class DatabaseUnavailable(NL2SQLError):
    """The questioned database is missing, unreadable, locked, corrupted or unreachable (exit 2)."""

    default_remedy = "Check the --database URL (or NL2SQL_DATABASE_URL) and that the database is reachable."


class IndexCorrupted(NL2SQLError):
    """The Chroma index folder is damaged or vanished (exit 2); the remedy rebuilds it, keeping the old copy."""

    default_remedy = ("Run `nl2sql index --rebuild` (the damaged folder is moved aside, not deleted, and the "
                      "indexes are built again).")


class ModelEndpointError(NL2SQLError):
    """A model endpoint is down, too slow, rate-limited past its retries, or sent unusable replies (exit 2)."""

    default_remedy = ("Check that the model server at the role's base_url is running and reachable (or start "
                      "the local one with `nl2sql llm serve`), then ask again.")


class StateStoreError(NL2SQLError):
    """The app's own record store (feedback, runs, reviews, checkpoints) cannot be read or written (exit 2)."""

    default_remedy = ("Check that the state folder (NL2SQL_STATE_DIR) is writable, has free space and is not "
                      "held by another program, then retry.")


class StorageError(NL2SQLError):
    """A file could not be written: disk full, read-only file system or permission denied (exit 2)."""

    default_remedy = "Free disk space or choose a writable location (e.g. NL2SQL_STATE_DIR), then retry."


class AnswerFailed(NL2SQLError):
    """The command ran but produced no usable result (exit 1)."""

    exit_code = EXIT_FAILED
    default_remedy = ""


_OS_CAUSES = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}


def classify(exc: BaseException) -> NL2SQLError | None:
    """The :class:`NL2SQLError` matching ``exc``, or None when it is not a known kind of fault.

    Recognised: :class:`NL2SQLError` itself; ``OSError`` with ENOSPC/EDQUOT/EROFS/EACCES/EPERM
    (:class:`StorageError`, naming the file); ``sqlite3`` / SQLAlchemy errors saying a file is locked, full,
    read-only or malformed; Pydantic validation errors (:class:`ConfigurationError`). The caller decides
    which store a SQLite error came from when it knows (see :func:`state_store_error`).
    """
    if isinstance(exc, NL2SQLError):
        return exc
    if isinstance(exc, OSError) and exc.errno in _OS_CAUSES:
        where = f" ({exc.filename})" if exc.filename else ""
        return StorageError(f"Cannot write{where}: {_OS_CAUSES[exc.errno]}")
    text = " ".join(str(exc).split())
    low = text.lower()
    if type(exc).__name__ == "ValidationError" and "pydantic" in type(exc).__module__:
        return ConfigurationError(f"Invalid setting: {text[:300]}")
    if "sqlite3" in type(exc).__module__ or type(exc).__module__.startswith("sqlalchemy"):
        if "database or disk is full" in low:
            return StorageError(f"A SQLite file could not be written: the disk is full ({text[:200]})")
        if "readonly database" in low or "read-only" in low:
            return StorageError(f"A SQLite file is on a read-only location ({text[:200]})")
        if "database is locked" in low or "database table is locked" in low:
            return DatabaseUnavailable(f"A SQLite file is locked by another program ({text[:200]})",
                                       remedy="Wait for the other program to finish (or close it), then retry.")
        if "malformed" in low or "not a database" in low:
            return DatabaseUnavailable(f"A SQLite file is corrupted ({text[:200]})",
                                       remedy="Restore the file from a backup or point the app at another one.")
    return None


def state_store_error(exc: BaseException, path: object) -> NL2SQLError:
    """``exc`` raised by the record store at ``path`` as a :class:`StateStoreError` (or StorageError)."""
    known = classify(exc)
    if isinstance(known, StorageError):
        return known
    path = re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", str(path))  # never show a password of a state URL
    text = " ".join(str(exc).split())[:200] or type(exc).__name__
    if "locked" in text.lower():
        return StateStoreError(f"The record store {path} is locked by another writer ({text})",
                               remedy="Close the other program holding it (or wait for it to finish), then retry.")
    return StateStoreError(f"The record store {path} cannot be used ({text})")
