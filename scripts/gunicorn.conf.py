"""Gunicorn settings shared by `make run`, the Docker image and docker-compose.yml.

Used as `gunicorn -c scripts/gunicorn.conf.py config.wsgi`. The bind address comes from the
command line (`make run`: $BIND:$PORT) or, when none is given, from $PORT (gunicorn then binds
0.0.0.0:$PORT, as in the image). Workers: --workers, else $WEB_CONCURRENCY, else 1.
Unknown names are ignored by older gunicorn versions, so this file is safe across versions.
"""

import os

accesslog = "-"
timeout = 60
graceful_timeout = 10
# Heartbeat files in memory, not on the container's (possibly slow, overlay) filesystem.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # noqa: S108
# gunicorn >= 27 opens a control socket in ~/.gunicorn/ by default: shared by every checkout
# on a machine and unwritable for the image's user. Engram does not use it.
control_socket_disable = True
# gunicorn's largest request line (default 4094): every URL the API schema allows fits, e.g.
# a 500-character `q` of 4-byte characters is 6000 bytes percent-encoded. Longer lines get
# gunicorn's own (HTML) 414 before Django sees them.
limit_request_line = 8190


def post_worker_init(worker) -> None:
    """Load models before the worker takes requests (first recall stays fast)."""
    from core.warmup import warm_up

    warm_up()
