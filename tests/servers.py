"""Session-scoped fixtures for the real engines the tests run SQL on: throwaway PostgreSQL and MariaDB servers and a
local SparkSession.

Each is started once per test run, on first use, and stopped at the end of the session. A missing engine is a
test failure (``pytest.fail``) with a message saying what is missing and how to install it, never a skip: CI must
fail rather than silently test less.

Registered from ``tests/conftest.py`` (imported there by name, like ``reference_impl``). Tests that request one
of them (ENGINE_FIXTURES) are marked ``engine`` automatically, so ``pytest -m "not engine"`` leaves them out; tests
that need an engine without these fixtures (dbt-duckdb, say) should carry ``@pytest.mark.engine`` themselves.

``postgres`` yields a :class:`PostgresServer`::

    def test_something(postgres):
        with postgres.connect(postgres.dbname_c) as conn:       # psycopg 3, autocommit
            conn.execute("select 1").fetchone()
        postgres.dsn(postgres.dbname_icu)                       # libpq keyword/value string
        postgres.host, postgres.port, postgres.user, postgres.password

``mariadb`` yields a :class:`MariaDBServer` (the ``mysql`` dialect's engine): its own data directory, a free
loopback port and a socket in a temporary directory, one database ``sqlndcg`` whose default collation is
MariaDB's case-insensitive ``utf8mb4_general_ci``::

    def test_something(mariadb):
        con = mariadb.connect()                                 # PyMySQL, utf8mb4

``fakesnow`` yields a ``snowflake.connector`` connection that fakesnow answers (Snowflake's SQL translated by
sqlglot and run on an in-memory DuckDB): no server, but its statements take seconds, so it is an engine test too.

``spark`` yields a ``pyspark.sql.SparkSession`` (``local[2]``, time zone UTC, 2 shuffle partitions, no UI).

``spark_cluster`` yields the URL of a Spark standalone cluster (``spark://127.0.0.1:PORT``): a master and two workers,
each its own JVM, started from pyspark's own launcher (``bin/spark-class``). ``spark_connect`` yields the address of
a Spark Connect server (``sc://127.0.0.1:PORT``) whose work runs on that cluster: how Databricks Connect and
serverless clients reach Spark. Both stop at the end of the run.
"""

from __future__ import annotations

import atexit
import glob
import os
import re
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ENGINE_FIXTURES = ("postgres", "mariadb", "fakesnow", "spark", "spark_cluster", "spark_connect")

# How long a server start may take before we give up (it takes ~1-3 s here).
PG_START_TIMEOUT = 60
PG_CMD_TIMEOUT = 120

INSTALL_PG = (
    "Install the PostgreSQL server binaries: on Debian/Ubuntu `apt-get install -y postgresql` "
    "(provides /usr/lib/postgresql/<version>/bin/initdb and pg_ctl), or point SQLNDCG_PG_BIN at a directory "
    "holding initdb and pg_ctl. `.ci/run` installs them when missing."
)
INSTALL_JAVA = (
    "Install a Java runtime (17 or newer for pyspark 4): on Debian/Ubuntu `apt-get install -y default-jre-headless`, "
    "or set JAVA_HOME. `.ci/run` installs it when missing."
)
INSTALL_MARIADB = (
    "Install the MariaDB server binaries: on Debian/Ubuntu `apt-get install -y mariadb-server` (provides "
    "/usr/sbin/mariadbd and /usr/bin/mariadb-install-db), or point SQLNDCG_MARIADB_BIN at a directory holding "
    "mariadbd and mariadb-install-db. `.ci/run` installs them when missing."
)
INSTALL_PY = "Install the test dependencies: `.venv/bin/pip install -e '.[test]'`."


def _fail(message: str):
    pytest.fail(message, pytrace=False)


def pytest_collection_modifyitems(config, items):
    """Mark every test that uses an engine fixture as ``engine`` (so ``-m "not engine"`` skips starting them): by
    its fixtures, or by an ``engine`` parameter naming one (``engine="postgres"``: such tests fetch the server
    with ``request.getfixturevalue``, which pytest cannot see when it collects)."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (any(name in getattr(item, "fixturenames", ()) for name in ENGINE_FIXTURES)
                or params.get("engine") in ENGINE_FIXTURES):
            item.add_marker(pytest.mark.engine)


# --------------------------------------------------------------------------------------------------------------
# PostgreSQL
# --------------------------------------------------------------------------------------------------------------

@dataclass
class PostgresServer:
    """A running throwaway PostgreSQL server (TCP on ``host``:``port``, password authentication)."""

    host: str
    port: int
    user: str
    password: str
    dbname_c: str = "sqlndcg_c"        # TEMPLATE template0, LC_COLLATE/LC_CTYPE 'C': byte order
    dbname_icu: str = "sqlndcg_icu"    # LOCALE_PROVIDER icu, ICU_LOCALE 'en-US': linguistic order
    version: str = ""                  # server_version, e.g. "15.14 (Debian 15.14-0+deb12u1)"
    bin_dir: str = ""
    data_dir: str = ""
    socket_dir: str = ""
    log_file: str = ""
    os_user: str = ""                  # the operating-system user the server runs as
    start_seconds: float = 0.0         # how long start-up took (initdb, start, CREATE DATABASE)

    @property
    def databases(self) -> tuple[str, str]:
        return (self.dbname_c, self.dbname_icu)

    def dsn(self, dbname: str | None = None) -> str:
        """libpq keyword/value connection string for ``dbname`` (default: ``dbname_c``)."""
        return (
            f"host={self.host} port={self.port} user={self.user} password={self.password} "
            f"dbname={dbname or self.dbname_c} connect_timeout=10"
        )

    def url(self, dbname: str | None = None) -> str:
        """``postgresql://`` URL for ``dbname`` (default: ``dbname_c``), e.g. for SQLAlchemy or ADBC."""
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{dbname or self.dbname_c}"

    def connect(self, dbname: str | None = None):
        """A new psycopg (v3) connection to ``dbname`` (default: ``dbname_c``) in autocommit mode; close it
        (or use it as a context manager)."""
        import psycopg

        return psycopg.connect(self.dsn(dbname), autocommit=True)

    def dbt_target(self, dbname: str | None = None, schema: str = "public", threads: int = 1) -> dict:
        """A dbt-postgres target (the mapping under ``outputs:`` in profiles.yml)."""
        return {
            "type": "postgres", "host": self.host, "port": self.port, "user": self.user,
            "password": self.password, "dbname": dbname or self.dbname_c, "schema": schema, "threads": threads,
        }


def _version_key(path: str):
    name = Path(path).parent.parent.name  # /usr/lib/postgresql/<version>/bin/initdb
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.]", name))


def find_pg_bin() -> str | None:
    """Directory of the newest initdb/pg_ctl: $SQLNDCG_PG_BIN, /usr/lib/postgresql/*/bin, then PATH."""
    override = os.environ.get("SQLNDCG_PG_BIN")
    if override:
        return override if os.access(os.path.join(override, "initdb"), os.X_OK) else None
    found = [p for p in glob.glob("/usr/lib/postgresql/*/bin/initdb") if os.access(p, os.X_OK)]
    if found:
        return str(Path(max(found, key=_version_key)).parent)
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl", path=str(Path(on_path).parent)):
        return str(Path(on_path).parent)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_os_user() -> str | None:
    """Who runs the server: None (ourselves) unless we are root; then the ``postgres`` system user, created
    as a dedicated ``sqlndcg-pg`` system user if the machine has no ``postgres`` user."""
    if os.geteuid() != 0:
        return None
    import pwd

    for name in ("postgres", "sqlndcg-pg"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    name = "sqlndcg-pg"
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    res = subprocess.run(
        [useradd, "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name],
        capture_output=True, text=True, timeout=60,
    )
    if res.returncode != 0:
        _fail(f"PostgreSQL refuses to run as root and there is no `postgres` user; `useradd {name}` failed: "
              f"{res.stderr.strip()}")
    return name


def _as_user(os_user: str | None, argv: list[str]) -> list[str]:
    if os_user is None:
        return argv
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    if os.access(runuser, os.X_OK):
        return [runuser, "-u", os_user, "--", *argv]
    import shlex

    return ["su", "-s", "/bin/sh", os_user, "-c", shlex.join(argv)]


def _tempdir_base(os_user: str | None) -> str | None:
    """A directory for the server's temp dir that ``os_user`` can reach (every ancestor searchable by others)."""
    base = tempfile.gettempdir()
    if os_user is None:
        return base
    p = Path(base).resolve()
    if all(q.stat().st_mode & stat.S_IXOTH for q in [p, *p.parents]):
        return base
    return "/tmp"


class _PostgresProcess:
    """Owns the data directory and the server process; ``stop()`` is idempotent (also registered with atexit)."""

    def __init__(self):
        self.bin_dir = find_pg_bin()
        if self.bin_dir is None:
            _fail("PostgreSQL server binaries not found (no initdb under /usr/lib/postgresql/*/bin, "
                  "$SQLNDCG_PG_BIN or PATH). " + INSTALL_PG)
        self.os_user = _server_os_user()
        self.root = tempfile.mkdtemp(prefix="sqlndcg-pg-", dir=_tempdir_base(self.os_user))
        self.data_dir = os.path.join(self.root, "data")
        self.socket_dir = os.path.join(self.root, "sock")
        self.log_file = os.path.join(self.root, "server.log")
        self.started = False
        os.mkdir(self.socket_dir)
        if self.os_user is not None:
            import pwd

            pw = pwd.getpwnam(self.os_user)
            for path in (self.root, self.socket_dir):
                os.chown(path, pw.pw_uid, pw.pw_gid)
        os.chmod(self.root, 0o700)
        atexit.register(self.stop)

    def _run(self, argv: list[str], what: str, timeout: float = PG_CMD_TIMEOUT) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PG", "LC_"))}
        env.update(LANG="C", LC_ALL="C")
        try:
            res = subprocess.run(_as_user(self.os_user, argv), cwd=self.root, env=env, capture_output=True,
                                 text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            _fail(f"PostgreSQL: {what} did not finish within {timeout} s: {' '.join(argv)}\n"
                  f"{e.stdout or ''}{e.stderr or ''}{self._log_tail()}")
        if res.returncode != 0:
            _fail(f"PostgreSQL: {what} failed (exit {res.returncode}): {' '.join(argv)}\n"
                  f"{res.stdout}{res.stderr}{self._log_tail()}")
        return res

    def _log_tail(self, n: int = 30) -> str:
        try:
            lines = Path(self.log_file).read_text(errors="replace").splitlines()[-n:]
        except OSError:
            return ""
        return "\n--- server log (tail) ---\n" + "\n".join(lines)

    def initdb(self, user: str, password: str) -> None:
        pwfile = os.path.join(self.root, "pwfile")
        with open(pwfile, "w") as f:
            f.write(password + "\n")
        if self.os_user is not None:
            import pwd

            pw = pwd.getpwnam(self.os_user)
            os.chown(pwfile, pw.pw_uid, pw.pw_gid)
        os.chmod(pwfile, 0o600)
        self._run([os.path.join(self.bin_dir, "initdb"), "-D", self.data_dir, "-U", user, f"--pwfile={pwfile}",
                   "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C",
                   "--no-sync", "--no-instructions"], "initdb")
        os.unlink(pwfile)

    def start(self, port: int) -> bool:
        """Start on ``port``; False if the port was taken meanwhile (the caller retries with another)."""
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(port),
            "unix_socket_directories": f"'{self.socket_dir}'",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "wal_level": "minimal",
            "max_wal_senders": "0",
            "max_wal_size": "1GB",
            "checkpoint_timeout": "1h",
            "autovacuum": "off",
            "jit": "off",
            "shared_buffers": "64MB",
            "max_connections": "40",
            "logging_collector": "off",
            "timezone": "'UTC'",
            "lc_messages": "'C'",
        }
        # The last setting wins, so appending to postgresql.conf (the server reads it as its own user) is enough.
        conf = "\n# sqlndcg test fixture\n" + "".join(f"{k} = {v}\n" for k, v in settings.items())
        with open(os.path.join(self.data_dir, "postgresql.conf"), "a") as f:
            f.write(conf)
        argv = [os.path.join(self.bin_dir, "pg_ctl"), "-D", self.data_dir, "-l", self.log_file, "-w",
                "-t", str(PG_START_TIMEOUT), "start"]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PG", "LC_"))}
        env.update(LANG="C", LC_ALL="C")
        try:
            res = subprocess.run(_as_user(self.os_user, argv), cwd=self.root, env=env, capture_output=True,
                                 text=True, timeout=PG_START_TIMEOUT + 30, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.started = True  # it may be half up: make stop() try
            _fail(f"PostgreSQL did not start within {PG_START_TIMEOUT} s.{self._log_tail()}")
        self.started = True
        if res.returncode == 0:
            return True
        log = self._log_tail()
        self.stop(remove=False)
        if "could not bind" in log or "Address already in use" in log:
            return False
        _fail(f"PostgreSQL failed to start (pg_ctl exit {res.returncode}):\n{res.stdout}{res.stderr}{log}")

    def _postmaster_pid(self) -> int | None:
        try:
            return int(Path(self.data_dir, "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def stop(self, remove: bool = True) -> None:
        if self.started:
            self.started = False
            pid = self._postmaster_pid()
            argv = [os.path.join(self.bin_dir, "pg_ctl"), "-D", self.data_dir, "-m", "immediate", "-w",
                    "-t", "30", "stop"]
            try:
                subprocess.run(_as_user(self.os_user, argv), cwd=self.root, capture_output=True, timeout=60,
                               stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                pass
            if pid is not None:  # belt and braces: the postmaster must be gone before its directory is
                for _ in range(100):
                    try:
                        os.kill(pid, 0)
                    except ProcessLookupError:
                        break
                    except PermissionError:  # not ours to signal: trust pg_ctl
                        break
                    if _ == 50:
                        try:
                            os.kill(pid, 9)
                        except OSError:
                            pass
                    time.sleep(0.1)
        if remove and os.path.isdir(self.root):
            shutil.rmtree(self.root, ignore_errors=True)


def _pick_libc_utf8_locale() -> str:
    """A libc UTF-8 locale that exists on this machine (for LC_COLLATE/LC_CTYPE of the ICU database)."""
    try:
        out = subprocess.run(["locale", "-a"], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.TimeoutExpired):
        out = []
    norm = {re.sub(r"[^a-z0-9_.]", "", name.lower().replace("utf-8", "utf8")): name for name in out}
    for want in ("c.utf8", "en_us.utf8"):
        if want in norm:
            return norm[want]
    return "C"


def start_postgres() -> tuple[PostgresServer, _PostgresProcess]:
    """Start a fresh server and create the two databases; the caller must ``proc.stop()``."""
    try:
        import psycopg
    except ImportError as e:
        _fail(f"psycopg (v3) is not importable ({e}). {INSTALL_PY}")
    proc = _PostgresProcess()
    try:
        user, password = "sqlndcg", "pw-" + secrets.token_hex(12)
        proc.initdb(user, password)
        for _attempt in range(5):
            port = _free_port()
            if proc.start(port):
                break
        else:
            _fail("PostgreSQL: no free port after 5 attempts.")
        server = PostgresServer(
            host="127.0.0.1", port=port, user=user, password=password, bin_dir=proc.bin_dir,
            data_dir=proc.data_dir, socket_dir=proc.socket_dir, log_file=proc.log_file,
            os_user=proc.os_user or "",
        )
        libc = _pick_libc_utf8_locale()
        with psycopg.connect(server.dsn("postgres"), autocommit=True) as conn:
            server.version = conn.execute("show server_version").fetchone()[0]
            conn.execute(
                f"CREATE DATABASE {server.dbname_c} TEMPLATE template0 ENCODING 'UTF8' "
                f"LC_COLLATE 'C' LC_CTYPE 'C'"
            )
            conn.execute(
                f"CREATE DATABASE {server.dbname_icu} TEMPLATE template0 ENCODING 'UTF8' "
                f"LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LC_COLLATE '{libc}' LC_CTYPE '{libc}'"
            )
        return server, proc
    except BaseException:
        proc.stop()
        raise


def _refuse_in_the_quick_subset(request, name: str) -> None:
    """The quick subset (``-m "not engine ..."``) starts no server: a test that reaches one there is not marked
    ``engine`` (pytest_collection_modifyitems marks it by its fixtures and parameters), and fails saying so."""
    if "not engine" in (request.config.getoption("markexpr", "") or ""):
        pytest.fail(f"a test outside the 'engine' mark asked for the {name} fixture under -m "
                    f"{request.config.getoption('markexpr')!r}: mark it engine (or name its server in a parameter)")


def _served(request, name: str, start):
    """A server ``start()`` started for the whole test run (its start time noted), stopped at its end."""
    _refuse_in_the_quick_subset(request, name)
    t0 = time.perf_counter()
    server, proc = start()
    server.start_seconds = time.perf_counter() - t0
    try:
        yield server
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def postgres(request):
    """A throwaway PostgreSQL server for the whole test run (see :class:`PostgresServer`)."""
    yield from _served(request, "postgres", start_postgres)


# --------------------------------------------------------------------------------------------------------------
# MariaDB (the mysql dialect)
# --------------------------------------------------------------------------------------------------------------

MARIADB_START_TIMEOUT = 60


@dataclass
class MariaDBServer:
    """A running throwaway MariaDB server (TCP on ``host``:``port``, password authentication)."""

    host: str
    port: int
    user: str
    password: str
    database: str = "sqlndcg"          # CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci: case-insensitive
    version: str = ""                  # VERSION(), e.g. "10.11.14-MariaDB-0+deb12u2"
    socket: str = ""
    start_seconds: float = 0.0

    def connect(self, database: str | None = None, **kwargs):
        """A new PyMySQL connection to ``database`` (default: ``database``), utf8mb4; close it."""
        import pymysql

        return pymysql.connect(host=self.host, port=self.port, user=self.user, password=self.password,
                               database=database or self.database, charset="utf8mb4", **kwargs)


def find_mariadb_bin() -> tuple[str, str] | None:
    """(mariadbd, mariadb-install-db): in $SQLNDCG_MARIADB_BIN, else on PATH or in /usr/sbin, /usr/bin."""
    override = os.environ.get("SQLNDCG_MARIADB_BIN")
    path = override or os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/bin"])
    server = shutil.which("mariadbd", path=path)
    install = shutil.which("mariadb-install-db", path=path)
    return (server, install) if server and install else None


class _MariaDBProcess:
    """Owns the data directory and the server process; ``stop()`` is idempotent (also registered with atexit)."""

    def __init__(self):
        found = find_mariadb_bin()
        if found is None:
            _fail("MariaDB server binaries not found (no mariadbd and mariadb-install-db in $SQLNDCG_MARIADB_BIN, "
                  "on PATH, /usr/sbin or /usr/bin). " + INSTALL_MARIADB)
        self.server_bin, self.install_bin = found
        self.root = tempfile.mkdtemp(prefix="sqlndcg-mariadb-")
        self.data_dir = os.path.join(self.root, "data")
        self.socket = os.path.join(self.root, "mariadb.sock")
        self.log_file = os.path.join(self.root, "server.log")
        self.proc: subprocess.Popen | None = None
        # root runs the server as root (CI does); anyone else as themselves
        self.user_args = ["--user=root"] if os.geteuid() == 0 else []
        atexit.register(self.stop)

    def _log_tail(self, n: int = 30) -> str:
        try:
            lines = Path(self.log_file).read_text(errors="replace").splitlines()[-n:]
        except OSError:
            return ""
        return "\n--- server log (tail) ---\n" + "\n".join(lines)

    def install(self) -> None:
        argv = [self.install_bin, "--no-defaults", f"--datadir={self.data_dir}", *self.user_args,
                "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"]
        try:
            res = subprocess.run(argv, cwd=self.root, capture_output=True, text=True, timeout=PG_CMD_TIMEOUT,
                                 stdin=subprocess.DEVNULL, env=dict(os.environ, LANG="C", LC_ALL="C"))
        except subprocess.TimeoutExpired as e:
            _fail(f"MariaDB: mariadb-install-db did not finish within {PG_CMD_TIMEOUT} s\n{e.stdout or ''}{e.stderr or ''}")
        if res.returncode != 0:
            _fail(f"MariaDB: mariadb-install-db failed (exit {res.returncode}): {' '.join(argv)}\n"
                  f"{res.stdout}{res.stderr}")

    def start(self, port: int) -> bool:
        """Start on ``port`` (loopback only); False if the port was taken meanwhile (the caller retries)."""
        argv = [self.server_bin, "--no-defaults", f"--datadir={self.data_dir}", *self.user_args,
                f"--port={port}", "--bind-address=127.0.0.1", f"--socket={self.socket}",
                f"--pid-file={os.path.join(self.root, 'mariadb.pid')}", f"--log-error={self.log_file}",
                "--skip-name-resolve", "--skip-log-bin", "--performance-schema=OFF",
                "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--innodb-buffer-pool-size=64M",
                "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
                "--default-time-zone=+00:00", "--max-connections=40", "--lc-messages=en_US"]
        Path(self.log_file).touch()
        self.proc = subprocess.Popen(argv, cwd=self.root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True,
                                     env=dict(os.environ, LANG="C", LC_ALL="C"))
        deadline = time.monotonic() + MARIADB_START_TIMEOUT
        while time.monotonic() < deadline:
            log = Path(self.log_file).read_text(errors="replace")
            if "ready for connections" in log and os.path.exists(self.socket):
                return True
            if self.proc.poll() is not None:
                self.proc = None
                if "Address already in use" in log or "Bind on TCP/IP port" in log:
                    return False
                _fail(f"MariaDB failed to start.{self._log_tail()}")
            time.sleep(0.1)
        self.stop(remove=False)
        _fail(f"MariaDB did not start within {MARIADB_START_TIMEOUT} s.{self._log_tail()}")

    def stop(self, remove: bool = True) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
        if remove and os.path.isdir(self.root):
            shutil.rmtree(self.root, ignore_errors=True)


def start_mariadb() -> tuple[MariaDBServer, _MariaDBProcess]:
    """Start a fresh server, create the database and a user with a password; the caller must ``proc.stop()``."""
    try:
        import pymysql
    except ImportError as e:
        _fail(f"PyMySQL is not importable ({e}). {INSTALL_PY}")
    proc = _MariaDBProcess()
    try:
        proc.install()
        for _attempt in range(5):
            port = _free_port()
            if proc.start(port):
                break
        else:
            _fail("MariaDB: no free port after 5 attempts.")
        server = MariaDBServer(host="127.0.0.1", port=port, user="sqlndcg", password="pw-" + secrets.token_hex(12),
                               socket=proc.socket)
        con = pymysql.connect(unix_socket=proc.socket, user="root", charset="utf8mb4", autocommit=True)
        try:
            with con.cursor() as cur:
                cur.execute("SELECT VERSION()")
                server.version = cur.fetchone()[0]
                cur.execute(f"CREATE DATABASE {server.database} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
                cur.execute(f"CREATE USER '{server.user}'@'127.0.0.1' IDENTIFIED BY '{server.password}'")
                cur.execute(f"GRANT ALL PRIVILEGES ON *.* TO '{server.user}'@'127.0.0.1'")
        finally:
            con.close()
        return server, proc
    except BaseException:
        proc.stop()
        raise


@pytest.fixture(scope="session")
def mariadb(request):
    """A throwaway MariaDB server for the whole test run (see :class:`MariaDBServer`)."""
    yield from _served(request, "mariadb", start_mariadb)


@pytest.fixture(scope="session")
def fakesnow(request):
    """A Snowflake connection emulated by fakesnow (database ``sqlndcg``, schema ``tests``) for the whole run."""
    _refuse_in_the_quick_subset(request, "fakesnow")
    try:
        import fakesnow as fake
        import snowflake.connector
    except Exception as e:  # ImportError, or a connector fakesnow cannot patch
        _fail(f"fakesnow and snowflake-connector-python are not importable ({type(e).__name__}: {e}). {INSTALL_PY}")
    with fake.patch():
        con = snowflake.connector.connect(database="sqlndcg", schema="tests")
        try:
            yield con
        finally:
            con.close()


# --------------------------------------------------------------------------------------------------------------
# Spark
# --------------------------------------------------------------------------------------------------------------

def _java_problem() -> str | None:
    """None if a usable Java (17+) is there, else what is wrong."""
    java_home = os.environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        where = f"JAVA_HOME={java_home} has no bin/java" if java_home else "no `java` on PATH and JAVA_HOME unset"
        return f"Java not found ({where})."
    try:
        res = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"`{java} -version` failed: {e}."
    m = re.search(r'version "(\d+)(?:\.(\d+))?', res.stderr + res.stdout)
    if m:
        major = int(m.group(1)) if m.group(1) != "1" else int(m.group(2) or 0)
        if major < 17:
            return f"Java {major} found at {java}; pyspark 4 needs Java 17 or newer."
    return None


@pytest.fixture(scope="session")
def spark(tmp_path_factory, request):
    """One local SparkSession for the whole test run (``local[2]``, UTC, 2 shuffle partitions, no UI)."""
    _refuse_in_the_quick_subset(request, "spark")
    try:
        import pyspark
        from pyspark.sql import SparkSession
    except Exception as e:  # ImportError, or a broken install
        _fail(f"pyspark is not importable ({type(e).__name__}: {e}). {INSTALL_PY}")
    problem = _java_problem()
    if problem:
        _fail(f"Spark needs Java: {problem} {INSTALL_JAVA}")

    tmp = tmp_path_factory.mktemp("spark")
    log4j = tmp / "log4j2.properties"
    log4j.write_text(
        "rootLogger.level = error\n"
        "rootLogger.appenderRef.stderr.ref = console\n"
        "appender.console.type = Console\n"
        "appender.console.name = console\n"
        "appender.console.target = SYSTEM_ERR\n"
        "appender.console.layout.type = PatternLayout\n"
        "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n"
    )
    # Workers (Python UDFs) run this interpreter; the driver binds to loopback (no hostname lookups).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    t0 = time.perf_counter()
    try:
        session = (
            SparkSession.builder.master("local[2]")
            .appName("sqlndcg-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.memory", "1g")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.warehouse.dir", str(tmp / "warehouse"))
            .config("spark.local.dir", str(tmp / "local"))
            .config("spark.driver.extraJavaOptions",
                    f"-Dlog4j2.configurationFile=file:{log4j} -Duser.timezone=UTC -Dderby.system.home={tmp}")
            .getOrCreate()
        )
    except Exception as e:
        _fail(f"Could not start a local SparkSession (pyspark {pyspark.__version__}): {type(e).__name__}: {e}\n"
              f"{INSTALL_JAVA}")
    session.sparkContext.setLogLevel("ERROR")
    session.start_seconds = time.perf_counter() - t0  # type: ignore[attr-defined]
    try:
        yield session
    finally:
        session.stop()


# --------------------------------------------------------------------------------------------------------------
# A Spark standalone cluster (a master and two workers) and a Spark Connect server on it
# --------------------------------------------------------------------------------------------------------------

SPARK_START_TIMEOUT = 240


def _spark_home() -> Path:
    try:
        import pyspark
    except Exception as e:
        _fail(f"pyspark is not importable ({type(e).__name__}: {e}). {INSTALL_PY}")
    problem = _java_problem()
    if problem:
        _fail(f"Spark needs Java: {problem} {INSTALL_JAVA}")
    return Path(pyspark.__file__).parent


class _Daemons:
    """JVMs started for the run, stopped (and their logs kept for messages) at the end."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []

    def start(self, name: str, argv: list[str], env: dict) -> Path:
        log = self.tmp / f"{name}.log"
        proc = subprocess.Popen(argv, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        self.procs.append((name, proc, log))
        return log

    def wait_for(self, name: str, log: Path, pattern: str) -> re.Match:
        deadline = time.monotonic() + SPARK_START_TIMEOUT
        proc = next(p for n, p, _ in self.procs if n == name)
        while time.monotonic() < deadline:
            found = re.search(pattern, log.read_text(errors="replace"))
            if found:
                return found
            if proc.poll() is not None:
                break
            time.sleep(0.5)
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        self.stop()
        _fail(f"Spark {name} did not start within {SPARK_START_TIMEOUT} s (exit {proc.poll()}); log tail:\n{tail}")

    def stop(self) -> None:
        import signal

        for _, proc, _ in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for _, proc, _ in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs.clear()


def _spark_env(home: Path, tmp: Path) -> dict:
    log4j = tmp / "log4j2.properties"
    log4j.write_text("rootLogger.level = warn\nrootLogger.appenderRef.stderr.ref = console\n"
                     "appender.console.type = Console\nappender.console.name = console\n"
                     "appender.console.target = SYSTEM_ERR\nappender.console.layout.type = PatternLayout\n"
                     "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n"
                     "logger.started.name = org.apache.spark\nlogger.started.level = info\n")
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOG_DIR=str(tmp), SPARK_WORKER_DIR=str(tmp / "work"),
               SPARK_NO_DAEMONIZE="1")
    env["SPARK_DAEMON_JAVA_OPTS"] = f"-Dlog4j2.configurationFile=file:{log4j} -Duser.timezone=UTC"
    return env


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory, request):
    """A standalone cluster on localhost: a master and two workers (one core, 1 GB each), separate JVMs."""
    _refuse_in_the_quick_subset(request, "spark_cluster")
    home = _spark_home()
    tmp = tmp_path_factory.mktemp("spark_cluster")
    env = _spark_env(home, tmp)
    spark_class = str(home / "bin" / "spark-class")
    daemons = _Daemons(tmp)
    port = _free_port()
    log = daemons.start("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", "0"], env)
    daemons.wait_for("master", log, r"I have been elected leader|Starting Spark master")
    url = f"spark://127.0.0.1:{port}"
    for i in (1, 2):
        log = daemons.start(f"worker{i}", [spark_class, "org.apache.spark.deploy.worker.Worker", url,
                                           "--host", "127.0.0.1", "--cores", "1", "--memory", "1g",
                                           "--webui-port", "0", "--work-dir", str(tmp / f"work{i}")], env)
        daemons.wait_for(f"worker{i}", log, r"Successfully registered with master")
    try:
        yield url
    finally:
        daemons.stop()


@pytest.fixture(scope="session")
def spark_connect(spark_cluster, tmp_path_factory):
    """A Spark Connect server whose jobs run on ``spark_cluster``; yields its ``sc://`` address."""
    home = _spark_home()
    tmp = tmp_path_factory.mktemp("spark_connect")
    env = _spark_env(home, tmp)
    port = _free_port()
    daemons = _Daemons(tmp)
    log = daemons.start("connect", [
        str(home / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
        "--master", spark_cluster, "--name", "sqlndcg-tests-connect",
        "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.session.timeZone=UTC",
        "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.executor.memory=512m", "--conf", f"spark.local.dir={tmp / 'local'}",
        "--driver-java-options", env["SPARK_DAEMON_JAVA_OPTS"],
    ], env)
    daemons.wait_for("connect", log, r"Spark Connect server started")
    try:
        yield f"sc://127.0.0.1:{port}"
    finally:
        daemons.stop()
