"""Provides store targets: a SQLite path or a server URL, shown to people with secrets masked.

A target is a SQLAlchemy URL (any string with ``://``) or a SQLite path. A URL is checked
at once: an unknown backend, a synchronous driver (``mysql+pymysql://``: the storage runs
on asyncio) or a missing database is one sentence, before any connection. The URL's
password and every secret-looking query value (``?password=``, ``sslpassword``,
``token``, ``api_key``...) are masked in :meth:`Target.display` and, through
:func:`scrub`, in any driver text; a path is shown resolved and cleaned (it may hold ESC).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from ..text import clean
from .errors import StoreError
from .sqlitefile import DEFAULT_PATH as DEFAULT_PATH  # shared with the start-up reader

#: Extras that install each server driver.
DRIVER_EXTRAS = {"postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql"}
#: The async driver a URL gets when it names none (``postgresql://``, ``mysql://``).
DEFAULT_DRIVERS = {"postgresql": "psycopg", "postgres": "psycopg", "mysql": "aiomysql", "mariadb": "aiomysql"}
#: Query keys whose values are secrets (``?password=``, ``sslpassword``, ``token``, ``api_key``...):
#: masked like the user-info password wherever the URL or a driver's text is shown.
_SECRET_KEY = re.compile(r"pass|pwd|secret|token|key|auth|credential|signature", re.IGNORECASE)
MASK = "***"


@dataclass(frozen=True, slots=True)
class Target:
    """Where a store lives: a SQLite file, or a server URL."""

    path: Path | None
    url: URL | None

    @property
    def dialect(self) -> str:
        """``sqlite`` for a file, otherwise the URL's backend name."""
        return "sqlite" if self.path is not None else self.url.get_backend_name()  # type: ignore[union-attr]

    @property
    def secrets(self) -> tuple[str, ...]:
        """The URL's password and every secret-looking query value (none for a file)."""
        if self.url is None:
            return ()
        found = [str(self.url.password)] if self.url.password else []
        for key, value in self.url.query.items():
            if _SECRET_KEY.search(key):
                found.extend(v for v in ((value,) if isinstance(value, str) else value) if v)
        return tuple(found)

    def display(self) -> str:
        """The target for people, cleaned: the resolved path, or the URL with its secrets masked."""
        if self.path is not None:
            return clean(self.path.resolve())
        assert self.url is not None
        query = {key: (MASK if _SECRET_KEY.search(key) else value) for key, value in self.url.query.items()}
        shown = self.url.set(query=query).render_as_string(hide_password=True).replace(quote(MASK, safe=""), MASK)
        return clean(scrub(shown, self.secrets))


def _check_backend(url: URL) -> None:
    """Refuse a URL naming an unknown backend or a synchronous driver, in one sentence."""
    shown = clean(scrub(url.render_as_string(hide_password=True), Target(None, url).secrets))
    try:
        dialect = url._get_entrypoint().get_async_dialect_cls(url)
    except NoSuchModuleError:
        backend = url.get_backend_name()
        if backend in DRIVER_EXTRAS or backend == "sqlite":
            raise StoreError(f"Unknown {backend} driver {url.get_driver_name()!r} in {shown}") from None
        raise StoreError(
            f"Unknown database backend {backend!r} in {shown}: zett-browser reads SQLite files "
            "and postgresql:// or mysql:// (mariadb://) URLs"
        ) from None
    if not dialect.is_async:
        backend = url.get_backend_name()
        advice = f"; use {backend}+{DEFAULT_DRIVERS[backend]}://" if backend in DEFAULT_DRIVERS else ""
        raise StoreError(
            f"{url.get_driver_name()!r} in {shown} is a synchronous driver; zett-browser needs an asyncio one{advice}"
        )


def parse_target(target: str | os.PathLike[str] | URL | None) -> Target:
    """Turn a path, URL or None (zett-agent's default store) into a :class:`Target`.

    Raises:
        StoreError: The string looks like a URL but cannot be parsed, names an unknown
            backend or a synchronous driver, or names no database.
    """
    if target is None:
        return Target(path=DEFAULT_PATH.expanduser(), url=None)
    if isinstance(target, URL):
        url = target
    elif isinstance(target, str) and "://" in target:
        try:
            url = make_url(target)
        except (ArgumentError, ValueError) as error:
            raise StoreError(f"Not a valid database URL: {clean(error)}") from None
    else:
        return Target(path=Path(target).expanduser().absolute(), url=None)
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:":
            raise StoreError("A SQLite URL must name a file")
        return Target(path=Path(url.database).expanduser().absolute(), url=None)
    if "+" not in url.drivername and url.drivername in DEFAULT_DRIVERS:
        backend = "postgresql" if url.drivername == "postgres" else url.drivername
        url = url.set(drivername=f"{backend}+{DEFAULT_DRIVERS[url.drivername]}")
    _check_backend(url)
    if not url.database:
        raise StoreError(f"The URL {Target(None, url).display()} names no database")
    return Target(path=None, url=url)


def scrub(text: str, secret: str | Iterable[str] | None) -> str:
    """``text`` with every occurrence of each secret (also percent-encoded) masked."""
    secrets = [secret] if isinstance(secret, str) else list(secret or ())
    forms = {form for value in secrets if value for form in (value, quote(value, safe=""), quote_plus(value))}
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, MASK)
    return text
