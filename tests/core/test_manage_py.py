"""manage.py in a second terminal while `make run` is up: with DATABASE_URL / REDIS_URL unset
it finds the running embedded stack in .data/ (as the README's create_agent line needs)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRINT_SETTINGS = (
    "from django.conf import settings as s; "
    "print(s.DATABASES['default']['HOST'], s.REDIS_URL, s.DEBUG)"
)


@pytest.fixture
def running_stack(tmp_path):
    """A .data/ as `make run` leaves it: postmaster.pid and the Redis pid/port files naming
    live processes (stand-ins whose command lines say postgres / redis-server)."""
    stand_ins = [
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", name])  # noqa: S603
        for name in ("postgres", "redis-server")
    ]
    pg, redis_dir = tmp_path / "pg", tmp_path / "redis"
    pg.mkdir()
    redis_dir.mkdir()
    socket_dir = tmp_path / "sock"
    (pg / "postmaster.pid").write_text(f"{stand_ins[0].pid}\n{pg}\n0\n5432\n{socket_dir}\n")
    (redis_dir / "redis.pid").write_text(f"{stand_ins[1].pid}\n")
    (redis_dir / "port").write_text("6391\n")
    yield tmp_path, socket_dir
    for process in stand_ins:
        process.kill()
        process.wait()


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def clean_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
    env.pop("DJANGO_DEBUG", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return {**env, "ENGRAM_DEVSTACK_DIR": str(data_dir)}


def test_it_uses_the_running_embedded_stack_when_the_urls_are_unset(running_stack):
    data_dir, socket_dir = running_stack
    result = manage(clean_env(data_dir), "shell", "-v", "0", "-c", PRINT_SETTINGS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(socket_dir), "redis://127.0.0.1:6391/0", "True"]


def test_urls_in_the_environment_win(running_stack):
    data_dir, _ = running_stack
    env = {
        **clean_env(data_dir),
        "DATABASE_URL": "postgres://postgres@db.example:5432/engram",
        "REDIS_URL": "redis://cache.example:6379/0",
        "DJANGO_SECRET_KEY": "x" * 50,
    }
    result = manage(env, "shell", "-v", "0", "-c", PRINT_SETTINGS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["db.example", "redis://cache.example:6379/0", "False"]
