"""`make run`: prepare the database, then run web + Celery worker + Celery beat together.

    .venv/bin/python scripts/run_all.py

1. DATABASE_URL / REDIS_URL: taken from the environment when set, otherwise the embedded stack
   from scripts/devstack.py is started (or reused if already running).
2. manage.py migrate, collectstatic, seed_demo (prints the demo agent key and the staff
   password), setup_periodic_tasks.
3. Starts, each in its own process group, with output prefixed by its name:
       web     gunicorn config.wsgi, 2 workers, on $BIND:$PORT (default 127.0.0.1:8000)
       mcp     uvicorn config.asgi (the MCP server at /mcp; every other path is Django too)
               on $BIND:$MCP_PORT (default $PORT + 1, i.e. 127.0.0.1:8001)
       worker  celery -A config worker --concurrency 1
       beat    celery -A config beat with django_celery_beat's DatabaseScheduler (core/beat.py)
4. Ctrl-C (or SIGTERM) stops all four, then the embedded servers if this run started them and
   no other command (e.g. a `make test` in another terminal) still uses them.
   If any of the four exits on its own, the others are stopped too and the exit code is 1.

Environment: PORT (8000), MCP_PORT (PORT + 1), BIND (127.0.0.1; use 0.0.0.0 to accept
remote connections), WEB_WORKERS (2), MCP_WORKERS (1), RUN_SKIP_SEED=1 to skip seed_demo,
DJANGO_DEBUG (defaults to true here).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import devstack  # noqa: E402

BIN = Path(sys.executable).parent
COLORS = {"web": "\033[36m", "mcp": "\033[32m", "worker": "\033[33m", "beat": "\033[35m"}
RESET = "\033[0m"
USE_COLOR = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
_print_lock = threading.Lock()


def say(msg: str) -> None:
    with _print_lock:
        print(f"run: {msg}", flush=True)


def manage(env: dict[str, str], *args: str) -> None:
    cmd = [sys.executable, "manage.py", *args]
    say("$ " + " ".join(cmd[1:]))
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)  # noqa: S603


def pump(name: str, stream) -> None:
    width = max(len(n) for n in COLORS)
    prefix = f"{name:<{width}} | "
    if USE_COLOR:
        prefix = f"{COLORS.get(name, '')}{prefix}{RESET}"
    for raw in iter(stream.readline, b""):
        line = raw.decode(errors="replace").rstrip("\n")
        with _print_lock:
            sys.stdout.write(prefix + line + "\n")
            sys.stdout.flush()
    stream.close()


def main() -> int:
    port = os.environ.get("PORT", "8000")
    bind = os.environ.get("BIND", "127.0.0.1")
    workers = os.environ.get("WEB_WORKERS", "2")
    mcp_port = os.environ.get("MCP_PORT") or str(int(port) + 1)
    mcp_workers = os.environ.get("MCP_WORKERS", "1")

    stack_env, _ = devstack.ensure(client_pid=os.getpid())
    env = {**os.environ, **stack_env, "PYTHONUNBUFFERED": "1", "PORT": port}
    # A development server: DEBUG gives the throwaway dev SECRET_KEY and cookies that work over
    # plain http. Export DJANGO_DEBUG=false (plus DJANGO_SECRET_KEY) to try production settings.
    env.setdefault("DJANGO_DEBUG", "true")
    for key in ("DATABASE_URL", "REDIS_URL"):
        origin = "embedded" if key in stack_env else "from environment"
        say(f"{key}={env[key]}  ({origin})")

    procs: dict[str, subprocess.Popen] = {}

    def shutdown(reason: str) -> None:
        say(f"{reason}; stopping {', '.join(procs) or 'nothing'} ...")
        for proc in procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for name, proc in procs.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                say(f"{name} did not stop in time; killing it")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        stopped = devstack.release(os.getpid())
        if stopped:
            say(f"stopped embedded {', '.join(stopped)}")

    stopping = threading.Event()

    def on_signal(signum, _frame):
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    try:
        manage(env, "migrate", "--noinput")
        manage(env, "collectstatic", "--noinput", "-v", "0")
        if not os.environ.get("RUN_SKIP_SEED"):
            manage(env, "seed_demo")
        manage(env, "setup_periodic_tasks")
    except subprocess.CalledProcessError as exc:
        say(f"setup step failed (exit {exc.returncode}): {' '.join(map(str, exc.cmd[1:]))}")
        shutdown("setup failed")
        return 1
    if stopping.is_set():
        shutdown("interrupted")
        return 130

    commands = {
        "web": [
            str(BIN / "gunicorn"),
            "-c",
            "scripts/gunicorn.conf.py",
            "config.wsgi",
            "--bind",
            f"{bind}:{port}",
            "--workers",
            workers,
        ],
        # MCP's streamable HTTP transport is ASGI: uvicorn serves config.asgi next to gunicorn.
        "mcp": [
            str(BIN / "uvicorn"),
            "config.asgi:application",
            "--host",
            bind,
            "--port",
            mcp_port,
            "--workers",
            mcp_workers,
            "--timeout-graceful-shutdown",
            "10",
        ],
        "worker": [
            str(BIN / "celery"),
            "-A",
            "config",
            "worker",
            "-l",
            "info",
            "--concurrency",
            "1",
        ],
        "beat": [
            str(BIN / "celery"),
            "-A",
            "config",
            "beat",
            "-l",
            "info",
            "--scheduler",
            "core.beat:OutageTolerantDatabaseScheduler",
        ],
    }
    for name, cmd in commands.items():
        # Own session/process group: terminal Ctrl-C reaches only us, and we stop each group
        # (gunicorn workers, celery pool children) deliberately and in one place.
        proc = subprocess.Popen(  # noqa: S603
            cmd,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        procs[name] = proc
        threading.Thread(target=pump, args=(name, proc.stdout), daemon=True).start()

    host = "127.0.0.1" if bind in ("0.0.0.0", "::") else bind  # noqa: S104
    base = f"http://{host}:{port}"
    say("")
    say(f"Engram is starting on {base}/")
    say(f"  API docs   {base}/api/docs/")
    say(f"  console    {base}/console/")
    say(f"  health     {base}/healthz")
    say(f"  MCP        http://{host}:{mcp_port}/mcp  (agent key as Authorization: Bearer)")
    say("Ctrl-C stops web, mcp, worker and beat (and the embedded servers if nothing else")
    say("uses them).")
    say("")

    rc = 0
    while not stopping.is_set():
        dead = [(n, p.returncode) for n, p in procs.items() if p.poll() is not None]
        if dead:
            name, code = dead[0]
            shutdown(f"{name} exited with code {code}")
            return 1
        stopping.wait(0.5)
    shutdown("interrupted")
    return rc


if __name__ == "__main__":
    sys.exit(main())
