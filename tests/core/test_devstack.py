"""scripts/devstack.py: restarting the embedded Redis keeps its port, so a running `make run`
reconnects (the drill restarts it within seconds of a `kill -9`)."""

import importlib.util
import os
import signal
import socket
import time
from pathlib import Path

import pytest
import redis

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "devstack.py"


@pytest.fixture
def devstack(tmp_path, monkeypatch):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ENGRAM_DEVSTACK_DIR", str(tmp_path))
    monkeypatch.setenv("ENGRAM_DEVSTACK_REDIS_PORT", str(port))
    spec = importlib.util.spec_from_file_location("devstack_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    module.redis_down()


def kill_9_with_a_client_connected(devstack, url: str) -> None:
    client = redis.Redis.from_url(url)
    client.ping()
    os.kill(devstack._redis_pid(), signal.SIGKILL)
    while devstack.redis_running():
        time.sleep(0.02)
    client.close()  # the server side of this connection now sits in TIME_WAIT


def test_it_restarts_redis_on_the_recorded_port_right_after_a_kill_9(devstack):
    url, started = devstack.redis_up()
    assert started
    kill_9_with_a_client_connected(devstack, url)

    again, started = devstack.redis_up()
    assert started and again == url
    assert redis.Redis.from_url(again).ping()


def test_it_refuses_to_move_redis_while_commands_still_use_the_stack(devstack):
    url, _ = devstack.redis_up()
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    devstack.redis_down()
    devstack._save_clients({"auto": ["redis"], "clients": [os.getpid()]})
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        with pytest.raises(SystemExit, match="in use by another process"):
            devstack.redis_up()
