#!/usr/bin/env bash
# `recover` on the generator's store of $people people (default a million) against the sqlite3
# shell's `pragma quick_check` on the same file (both read every page), and its peak memory.
# The store first loses a tenth of its people in one save (Core Data-shaped: the join rows go,
# the cars' owners are nullified) on a copy, checkpointed, so the carver has freed cells to find.
#
#   Benchmarks/recover.sh [PEOPLE]
#
# Needs hyperfine and GNU time. Release builds, the Swift runtime linked statically.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
deleted="$out/recover-$people.sqlite"
if [ ! -f "$deleted" ]; then
    echo "== deleting every tenth person from a copy of $store" >&2
    cp "$store" "$deleted"
    # Debian's sqlite3 is built with secure_delete on; Core Data's SQLite leaves it off.
    sqlite3 "$deleted" "PRAGMA secure_delete = 0; BEGIN; DELETE FROM Z_3TAGS WHERE Z_3PEOPLE % 10 = 0; UPDATE ZCAR SET ZOWNER = NULL WHERE ZOWNER % 10 = 0;
        DELETE FROM ZPERSON WHERE Z_PK % 10 = 0; COMMIT; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
fi
from_disk "$deleted"
found=$("$bin/cdinspect" recover "$deleted" Person --immutable --format csv 2>/dev/null | grep -c ',deleted,' || true)
echo "== $people people, $(( $(stat -c %s "$deleted") / 1048576 )) MB; recover lists $found deleted Person rows" >&2
hyperfine -N --warmup 1 --runs "${RUNS:-5}" --output=pipe --export-json "$out/recover.json" \
    -n quick_check "sqlite3 $deleted 'pragma quick_check'" \
    -n recover "$bin/cdinspect recover $deleted --immutable --format csv" >&2
python3 - "$out/recover.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"recover {r['recover']:8.2f} s   quick_check {r['quick_check']:8.2f} s   ratio {r['recover']/r['quick_check']:.2f}x")
PY
echo "  peak memory (max RSS): recover $(( $(/usr/bin/time -f %M "$bin/cdinspect" recover "$deleted" --immutable --format csv 2>&1 >/dev/null | tail -1) / 1024 )) MB"
