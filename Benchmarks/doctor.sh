#!/usr/bin/env bash
# `doctor` on a generated store of about 1 GB (a million people of the example model, each
# with a 900-byte photo kept in the row, their cars and tags) against the sqlite3 shell
# running `PRAGMA quick_check` and a `dbstat` page summary on the same store: the two
# passes over every page that doctor's report rests on. Prints both medians, the ratio and
# both peak memories (compare.py); doctor reads every table once more for its row checks,
# in constant memory.
#
#   Benchmarks/doctor.sh [PEOPLE]        (default 1000000; RUNS=3 by default)
#
# Release builds, with the Swift runtime linked statically as a shipped binary would be.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
runs=${RUNS:-3}
big="$out/doctor-$people.sqlite"
if [ ! -f "$big" ]; then
    echo "== writing $big: $store with a 900-byte photo per person" >&2
    cp "$store" "$big"
    [ -f "$store-wal" ] && cp "$store-wal" "$big-wal"
    sqlite3 "$big" "UPDATE ZPERSON SET ZPHOTO = CAST(x'01' || randomblob(900) AS BLOB); PRAGMA wal_checkpoint(TRUNCATE);" >&2
fi
ls -l "$big" >&2
uri="file:$big?mode=ro"
printf '%-22s %12s %12s %8s   %10s %10s\n' "work" "cdinspect" "other" "ratio" "peak ours" "peak other"
python3 Benchmarks/compare.py "$runs" \
    "doctor" "$bin/cdinspect doctor $big --format json" \
    "sqlite3 $uri 'PRAGMA quick_check; SELECT name, sum(pgsize) FROM dbstat GROUP BY name;'"
