"""Install the dependencies declared in pyproject.toml into the running interpreter's env.

Usage: .venv/bin/python scripts/install_deps.py [--extras embedded,dev] [--force]

The project is an application, not a distributable package ([tool.setuptools] packages = []),
so instead of `pip install -e .` we read [project].dependencies plus the requested
[project.optional-dependencies] groups with tomllib and hand them to pip.

With the `dev` extra, the Python SDK in clients/python (distribution engram-client, module
engram) is installed too, in editable mode, so the tests (tests/sdk) and the examples import it
from the checkout. The server itself does not need it (the Docker image installs no extra).

Idempotent and quiet: a stamp file next to the interpreter's environment records a hash of
the requirement list (and of the SDK's pyproject.toml and location); when it matches, nothing
runs (takes ~50 ms). Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Packages of this repository installed in editable mode with the `dev` extra.
DEV_LOCAL_PACKAGES = [ROOT / "clients" / "python"]


def requirements(pyproject: Path, extras: list[str]) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    reqs = list(project.get("dependencies", []))
    optional = project.get("optional-dependencies", {})
    for extra in extras:
        if extra not in optional:
            sys.exit(f"install_deps: unknown extra {extra!r} (have: {', '.join(optional)})")
        reqs.extend(optional[extra])
    return reqs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="embedded,dev", help="comma-separated extras")
    parser.add_argument("--pyproject", default=str(ROOT / "pyproject.toml"))
    parser.add_argument("--force", action="store_true", help="ignore the stamp")
    args = parser.parse_args()

    extras = [e.strip() for e in args.extras.split(",") if e.strip()]
    reqs = requirements(Path(args.pyproject), extras)
    local_packages = DEV_LOCAL_PACKAGES if "dev" in extras else []
    local = [
        {"path": str(path), "pyproject": (path / "pyproject.toml").read_text(encoding="utf-8")}
        for path in local_packages
    ]
    digest = hashlib.sha256(
        json.dumps({"python": sys.version, "reqs": reqs, "local": local}, sort_keys=True).encode()
    ).hexdigest()

    stamp = Path(sys.prefix) / f".engram-deps-{'-'.join(extras) or 'base'}.sha256"
    if not args.force and stamp.exists() and stamp.read_text().strip() == digest:
        return 0

    print(
        f"install_deps: installing {len(reqs)} requirements ({', '.join(extras) or 'base'})",
        file=sys.stderr,
    )
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "-qq",
        "--disable-pip-version-check",
        "--no-input",
        *reqs,
        *(arg for path in local_packages for arg in ("-e", str(path))),
    ]
    result = subprocess.run(cmd, check=False)  # noqa: S603 - fixed argv, our own pyproject
    if result.returncode != 0:
        stamp.unlink(missing_ok=True)
        return result.returncode
    stamp.write_text(digest + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
