#!/usr/bin/env bash
# Fails when the checked-in migrations of either provider do not produce exactly the model in
# prisma/models.prisma. PostgreSQL needs a server (MIGRATIONS_CHECK_PG_URL, default the local
# one) where the role may create the shadow database the check uses; it is dropped afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1
status=0
declare -A url=(
  [sqlite]="file::memory:"
  [postgresql]="${MIGRATIONS_CHECK_PG_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
)
for provider in sqlite postgresql; do
  if DB_PROVIDER=$provider DATABASE_URL="${url[$provider]}" npx --no-install prisma migrate diff \
      --from-migrations "prisma/$provider/migrations" \
      --to-schema-datamodel "prisma/$provider" \
      --exit-code > "/tmp/migration-diff-$provider.sql" 2>&1; then
    echo "migrations match the model ($provider)"
  else
    echo "migrations do NOT match the model ($provider); the missing changes:" >&2
    cat "/tmp/migration-diff-$provider.sql" >&2
    status=1
  fi
done
exit $status
