"""Throwaway PostgreSQL and MariaDB/MySQL servers for the tests, on loopback only.

Each server is a fresh cluster in a temporary directory, started on a free port and
removed afterwards. Nothing is written to a system cluster. A test run can instead use
servers started elsewhere by setting ``ZETT_TEST_POSTGRES_URL`` / ``ZETT_TEST_MYSQL_URL``
to a superuser URL (sync driver, e.g. ``postgresql+psycopg://postgres:pw@127.0.0.1/postgres``).

When a server's programs are not installed, the tests that need it are skipped with
the reason, unless ``ZETT_REQUIRE_SERVERS=1`` (set by ``.ci/run``) turns that into a
failure.

Roles created in every server:

- ``zett_owner`` (password ``owner-pw``): owns the test databases, as zett-agent's role would;
- ``zett_reader`` (password ``reader-pw``): may only ``SELECT``, as docs/server-stores.md tells
  users to grant a browsing role.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, Engine, make_url

OWNER = ("zett_owner", "owner-pw")
READER = ("zett_reader", "reader-pw")
SUPER_PASSWORD = "super-pw"


class ServerUnavailable(RuntimeError):
    """The server's programs are not installed here."""


def required() -> bool:
    return os.environ.get("ZETT_REQUIRE_SERVERS") == "1"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_user(user: str | None, command: list[str]) -> list[str]:
    if user is None:
        return command
    return ["runuser", "-u", user, "--", *command]


def _service_user(name: str) -> str | None:
    """Servers refuse to run as root: run them as their packaged user then."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(name)
    except KeyError:
        raise ServerUnavailable(f"running as root and there is no {name!r} user to run the server as") from None
    return name


@dataclass
class Server:
    """A running server: its dialect, superuser URL and a way to make fresh databases."""

    dialect: str  # "postgresql" or "mysql"
    admin_url: URL
    async_driver: str
    sync_driver: str
    _stop: list[list[str]] = field(default_factory=list)
    _root: Path | None = None
    _process: subprocess.Popen[bytes] | None = None
    _admin: Engine | None = None

    def admin(self) -> Engine:
        if self._admin is None:
            self._admin = create_engine(self.admin_url, isolation_level="AUTOCOMMIT", pool_size=1)
        return self._admin

    def url(self, database: str, *, role: tuple[str, str] = OWNER, sync: bool = False) -> URL:
        return self.admin_url.set(
            drivername=f"{self.dialect}+{self.sync_driver if sync else self.async_driver}",
            username=role[0],
            password=role[1],
            database=database,
        )

    def create_database(self) -> str:
        """A new empty database owned by ``zett_owner`` that ``zett_reader`` may only read."""
        name = "zt_" + uuid.uuid4().hex[:16]
        with self.admin().connect() as connection:
            if self.dialect == "postgresql":
                connection.execute(text(f'CREATE DATABASE "{name}" OWNER zett_owner'))
            else:
                connection.execute(text(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"))
                connection.execute(text(f"GRANT ALL ON `{name}`.* TO 'zett_owner'@'%'"))
                connection.execute(text(f"GRANT SELECT ON `{name}`.* TO 'zett_reader'@'%'"))
        if self.dialect == "postgresql":
            engine = create_engine(self.admin_url.set(database=name), isolation_level="AUTOCOMMIT")
            with engine.connect() as connection:
                connection.execute(text("GRANT USAGE ON SCHEMA public TO zett_reader"))
                connection.execute(
                    text(
                        "ALTER DEFAULT PRIVILEGES FOR ROLE zett_owner IN SCHEMA public "
                        "GRANT SELECT ON TABLES TO zett_reader"
                    )
                )
            engine.dispose()
        return name

    def drop_database(self, name: str) -> None:
        with self.admin().connect() as connection:
            if self.dialect == "postgresql":
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            else:
                connection.execute(text(f"DROP DATABASE IF EXISTS `{name}`"))

    def stop(self) -> None:
        if self._admin is not None:
            self._admin.dispose()
        for command in self._stop:
            subprocess.run(command, capture_output=True, timeout=60, check=False)
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)


def _wait_until(check: object, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            check()  # type: ignore[operator]
            return
        except Exception as exc:  # noqa: BLE001 - retried until the deadline
            error = exc
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not start: {error}")


def _postgres_bindir() -> Path:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    found = shutil.which("initdb")
    if found:
        candidates.insert(0, found)
    if not candidates:
        raise ServerUnavailable("PostgreSQL is not installed (apt-get install postgresql)")
    return Path(os.path.realpath(candidates[0])).parent


def start_postgres() -> Server:
    """initdb a throwaway cluster and start it on 127.0.0.1 with password authentication."""
    external = os.environ.get("ZETT_TEST_POSTGRES_URL")
    if external:
        server = Server("postgresql", make_url(external), "psycopg", "psycopg")
        _make_roles(server)
        return server
    bindir = _postgres_bindir()
    user = _service_user("postgres")
    root = Path(tempfile.mkdtemp(prefix="zett-pg-"))
    data, sockets = root / "data", root / "run"
    sockets.mkdir()
    (root / "pw").write_text(SUPER_PASSWORD + "\n")
    if user is not None:
        shutil.chown(root, user)
        shutil.chown(sockets, user)
        shutil.chown(root / "pw", user)
    os.chmod(root, 0o700)
    port = _free_port()
    subprocess.run(
        _as_user(
            user,
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                f"--pwfile={root / 'pw'}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        ),
        check=True,
        capture_output=True,
        timeout=120,
    )
    options = (
        f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    subprocess.run(
        _as_user(
            user, [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]
        ),
        check=True,
        capture_output=True,
        timeout=120,
    )
    admin = URL.create(
        "postgresql+psycopg",
        username="postgres",
        password=SUPER_PASSWORD,
        host="127.0.0.1",
        port=port,
        database="postgres",
    )
    server = Server(
        "postgresql",
        admin,
        "psycopg",
        "psycopg",
        _stop=[_as_user(user, [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"])],
        _root=root,
    )
    try:
        _wait_until(lambda: server.admin().connect().close(), "PostgreSQL")
        _make_roles(server)
    except BaseException:
        server.stop()
        raise
    return server


def start_mysql() -> Server:
    """Install a throwaway MariaDB (or MySQL) data directory and start it on 127.0.0.1."""
    external = os.environ.get("ZETT_TEST_MYSQL_URL")
    if external:
        server = Server("mysql", make_url(external), "aiomysql", "pymysql")
        _make_roles(server)
        return server
    daemon = (
        shutil.which("mariadbd")
        or shutil.which("mariadbd", path="/usr/sbin")
        or shutil.which("mysqld", path="/usr/sbin")
    )
    install = shutil.which("mariadb-install-db") or shutil.which("mysql_install_db")
    if not daemon or not install:
        raise ServerUnavailable("MariaDB/MySQL is not installed (apt-get install mariadb-server)")
    user = _service_user("mysql")
    root = Path(tempfile.mkdtemp(prefix="zett-mysql-"))
    data = root / "data"
    if user is not None:
        shutil.chown(root, user)
    port = _free_port()
    socket_path = root / "mysqld.sock"
    subprocess.run(
        _as_user(user, [install, f"--datadir={data}", "--auth-root-authentication-method=normal", "--skip-test-db"]),
        check=True,
        capture_output=True,
        timeout=180,
    )
    process = subprocess.Popen(
        _as_user(
            user,
            [
                daemon,
                "--no-defaults",
                f"--datadir={data}",
                f"--socket={socket_path}",
                f"--pid-file={root / 'mysqld.pid'}",
                f"--port={port}",
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--innodb-flush-log-at-trx-commit=0",
                "--skip-log-bin",
                f"--log-error={root / 'error.log'}",
            ],
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    admin = URL.create("mysql+pymysql", username="root", host="127.0.0.1", port=port)
    server = Server("mysql", admin, "aiomysql", "pymysql", _root=root, _process=process)
    try:
        _wait_until(lambda: server.admin().connect().close(), "MariaDB")
        with server.admin().connect() as connection:
            connection.execute(text(f"CREATE USER 'zett_admin'@'%' IDENTIFIED BY '{SUPER_PASSWORD}'"))
            connection.execute(text("GRANT ALL PRIVILEGES ON *.* TO 'zett_admin'@'%' WITH GRANT OPTION"))
        server.admin().dispose()
        server._admin = None
        server.admin_url = admin.set(username="zett_admin", password=SUPER_PASSWORD)
        _make_roles(server)
    except BaseException:
        server.stop()
        raise
    return server


def _make_roles(server: Server) -> None:
    with server.admin().connect() as connection:
        for name, password in (OWNER, READER):
            if server.dialect == "postgresql":
                exists = connection.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :n"), {"n": name}).first()
                if not exists:
                    connection.execute(text(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'"))
            else:
                connection.execute(text(f"CREATE USER IF NOT EXISTS '{name}'@'%' IDENTIFIED BY '{password}'"))


def serve(dialect: str) -> Iterator[Server]:
    """Start a server for a test session and stop it afterwards (a fixture body)."""
    server = start_postgres() if dialect == "postgresql" else start_mysql()
    try:
        yield server
    finally:
        server.stop()
