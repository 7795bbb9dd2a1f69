#!/usr/bin/env bash
# Fails when the checked-in generated files (bundled spec, TypeScript types) differ from what
# `npm run generate` makes of openapi/ now.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
npm run --silent generate > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
if ! git diff --exit-code --stat -- generated/ || [ -n "$(git status --porcelain --untracked-files=all -- generated/ | grep -v '^!!')" ]; then
  echo "generated/ is stale: run npm run generate and commit the result" >&2
  git status --short -- generated/ >&2
  exit 1
fi
echo "generated/ is up to date"
