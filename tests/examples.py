"""Run a script of examples/ as a user would: a subprocess with their environment."""

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(script: str, *, timeout: int = 180, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 - our own example, fixed argv
        [sys.executable, str(EXAMPLES / script)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
