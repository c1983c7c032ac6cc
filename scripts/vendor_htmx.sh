#!/usr/bin/env bash
# Re-vendors htmx into static/vendor/ from the npm registry package `htmx.org` (no CDN).
#   bash scripts/vendor_htmx.sh [VERSION]      # default: newest 2.x
# Writes static/vendor/htmx.min.js (upstream dist/htmx.min.js plus a one-line provenance
# comment), static/vendor/htmx.LICENSE and static/vendor/README.md. Needs node/npm.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
spec="htmx.org@${1:-2}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

( cd "$tmp" && npm pack --silent "$spec" >/dev/null && tar xzf htmx.org-*.tgz )
version="$(node -p 'require(process.argv[1]).version' "$tmp/package/package.json")"
license="$(node -p 'require(process.argv[1]).license' "$tmp/package/package.json")"
integrity="$(npm view "htmx.org@$version" dist.integrity)"
upstream_sha="$(sha256sum "$tmp/package/dist/htmx.min.js" | cut -d' ' -f1)"

mkdir -p static/vendor
{
  printf '/*! htmx %s | %s license (see htmx.LICENSE) | https://htmx.org | vendored from npm htmx.org@%s dist/htmx.min.js */\n' \
    "$version" "$license" "$version"
  cat "$tmp/package/dist/htmx.min.js"
} > static/vendor/htmx.min.js
cp "$tmp/package/LICENSE" static/vendor/htmx.LICENSE

cat > static/vendor/README.md <<MD
# Vendored front-end code

Served by WhiteNoise as \`{% static 'vendor/...' %}\`; nothing is loaded from a CDN.
Refresh with \`bash scripts/vendor_htmx.sh [VERSION]\` (uses \`npm pack\`, needs node/npm).

| file | package | version | license | source |
| --- | --- | --- | --- | --- |
| htmx.min.js | [htmx.org](https://www.npmjs.com/package/htmx.org) | $version | $license ([htmx.LICENSE](htmx.LICENSE)) | \`dist/htmx.min.js\` of the npm tarball |

- npm tarball integrity: \`$integrity\`
- sha256 of upstream \`dist/htmx.min.js\`: \`$upstream_sha\`
  (our copy adds one provenance comment line on top: \`tail -n +2 htmx.min.js | sha256sum\`)
MD
echo "vendored htmx $version into static/vendor/"
