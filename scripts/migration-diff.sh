#!/usr/bin/env bash
# Prints, for one provider ($1: sqlite or postgresql), the SQL that would bring the checked-in
# migrations to the model in prisma/models.prisma, without the statements about the objects
# that migrations create by hand and Prisma does not model (UNMANAGED below): Prisma would drop
# them. Used by check-migrations.sh and new-migration.sh. PostgreSQL needs a server
# (MIGRATIONS_CHECK_PG_URL, default the local one) where the role may create the shadow
# database the diff uses; it is dropped afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1
provider=$1
# The event search index (on SQLite an FTS5 table, its shadow tables, its view of terms and the
# events whose document a trigger took out to be written again; on PostgreSQL a tsvector table,
# its words in date order and their parts),
# and PostgreSQL's counts waiting for their transaction's commit (close_write_transaction).
UNMANAGED='"(EventSearch(Moved|Vocab|Word|WordPart)?(_[a-zA-Z]+)*|PendingDayCount|PendingTermCount)"'
case $provider in
  sqlite) url="file::memory:" ;;
  postgresql) url="${MIGRATIONS_CHECK_PG_URL:-postgresql://postgres@127.0.0.1:5432/postgres}" ;;
  *) echo "usage: $0 sqlite|postgresql" >&2; exit 2 ;;
esac
DB_PROVIDER=$provider DATABASE_URL=$url npx --no-install prisma migrate diff \
  --from-migrations "prisma/$provider/migrations" --to-schema-datamodel "prisma/$provider" --script \
  | awk -v RS= -v ORS='\n\n' -v unmanaged="$UNMANAGED" '$0 !~ unmanaged && $0 ~ /(^|\n)[^-\n]/'
