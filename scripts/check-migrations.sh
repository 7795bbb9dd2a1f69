#!/usr/bin/env bash
# Fails when the checked-in migrations of either provider do not produce exactly the model in
# prisma/models.prisma (objects created by hand aside: see migration-diff.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for provider in sqlite postgresql; do
  missing=$(bash scripts/migration-diff.sh "$provider")
  if [ -z "$missing" ]; then
    echo "migrations match the model ($provider)"
  else
    echo "migrations do NOT match the model ($provider); the missing changes:" >&2
    echo "$missing" >&2
    status=1
  fi
done
exit $status
