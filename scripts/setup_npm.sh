#!/usr/bin/env bash
# Installs the npm packages the browser tests use (tests/stacks/web:
# playwright-core to drive Debian's Chromium, speedscope to load hwt's
# files), exactly as package-lock.json pins them. Idempotent: does nothing
# when they are installed and the lock file has not changed since.
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/tests/stacks/web"
stamp="$dir/node_modules/.hwt-lock"
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: no npm: the browser tests will be skipped"
  exit 0
fi
if [ -f "$stamp" ] && cmp -s "$stamp" "$dir/package-lock.json"; then
  echo "setup: npm packages present"
  exit 0
fi
echo "setup: npm ci in tests/stacks/web"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
cp "$dir/package-lock.json" "$stamp"
