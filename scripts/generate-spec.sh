#!/usr/bin/env bash
# Bundles openapi/ into generated/openapi.json (English, the source of truth), then applies each
# language's overlay to get generated/openapi.<language>.json (same document, translated texts).
set -euo pipefail
cd "$(dirname "$0")/.."
export REDOCLY_TELEMETRY=off
npx --no-install redocly bundle openapi/openapi.yaml -o generated/openapi.json
for language in pt-br es; do
  npx --no-install redocly bundle openapi/openapi.yaml --overlay "openapi/overlays/$language.yaml" -o "generated/openapi.$language.json"
done
