#!/usr/bin/env bash
# Builds and installs pgvector into the machine's PostgreSQL (CI and bare-metal hosts).
# Debian 12 ships no pgvector package, so we build Debian 13's source package against
# postgresql-server-dev-<major>. Idempotent: does nothing when the extension is already available.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-$(pg_lsclusters -h 2>/dev/null | awk 'NR==1{print $1}')}"
PG_MAJOR="${PG_MAJOR:-15}"
PG_SHAREDIR="/usr/share/postgresql/${PG_MAJOR}/extension"

if [ -f "${PG_SHAREDIR}/vector.control" ]; then
  echo "pgvector already installed for PostgreSQL ${PG_MAJOR}"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

echo "Installing build dependencies for pgvector (PostgreSQL ${PG_MAJOR})..."
$SUDO tee /etc/apt/sources.list.d/engram-trixie-src.sources >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
  "postgresql-server-dev-${PG_MAJOR}" build-essential dpkg-dev >/dev/null

workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
cd "$workdir"
apt-get source --download-only pgvector >/dev/null 2>&1 || apt-get source --download-only pgvector
dpkg-source -x --no-check ./pgvector_*.dsc src >/dev/null
cd src
make -s OPTFLAGS="" PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" >/dev/null
$SUDO make -s OPTFLAGS="" PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" install >/dev/null
echo "pgvector installed for PostgreSQL ${PG_MAJOR}"
