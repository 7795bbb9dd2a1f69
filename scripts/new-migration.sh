#!/usr/bin/env bash
# npm run migration:new -- <name>: writes the migration that brings each provider's migrations to
# prisma/models.prisma, as prisma/<provider>/migrations/<timestamp>_<name>/migration.sql (SQL
# that Prisma cannot write, such as triggers, is then added by hand to both).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: npm run migration:new -- <name>}
folder="$(date -u +%Y%m%d%H%M%S)_$name"
declare -A sql
for provider in sqlite postgresql; do
  # Computed before any folder exists: the diff would read an empty migration folder as broken.
  sql[$provider]=$(bash scripts/migration-diff.sh "$provider")
done
if [ -z "${sql[sqlite]}${sql[postgresql]}" ]; then
  echo "the migrations already match prisma/models.prisma: nothing to write" >&2
  exit 1
fi
for provider in sqlite postgresql; do
  mkdir -p "prisma/$provider/migrations/$folder"
  printf '%s\n' "${sql[$provider]}" > "prisma/$provider/migrations/$folder/migration.sql"
  echo "prisma/$provider/migrations/$folder/migration.sql"
done
