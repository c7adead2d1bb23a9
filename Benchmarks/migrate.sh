#!/usr/bin/env bash
# Compares `cdinspect migrate` of one added attribute (Person.rank, Integer 16, default 3) with
# what the sqlite3 shell does for it by hand: ALTER TABLE … ADD COLUMN plus a copy of the
# table. The store: a million people written by the Examples generator. cdinspect writes a new
# store (--to), every table copied, indexes and metadata made; the shell changes a fresh copy.
# Prints each tool's mean time, the ratio, and each tool's peak memory.
#
#   Benchmarks/migrate.sh [PEOPLE]        (default 1000000)
#
# Needs hyperfine and GNU time. Release builds, the Swift runtime linked statically.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
model="$out/migrate-next.xcdatamodel"
mkdir -p "$model"
sed 's|<attribute name="score"|<attribute name="rank" optional="YES" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>\n        <attribute name="score"|' \
    Examples/People.xcdatamodeld/People.xcdatamodel/contents > "$model/contents"
grep -q 'name="rank"' "$model/contents" || { echo "the example model changed: no score attribute" >&2; exit 1; }
migrated="$out/migrated.sqlite"
work="$out/migrate-work.sqlite"
clean="rm -f $migrated $migrated-wal $migrated-shm"
fresh="cp $store $work && rm -f $work-wal $work-shm"
shell_sql="ALTER TABLE ZPERSON ADD COLUMN ZRANK INTEGER; CREATE TABLE ZPERSONCOPY AS SELECT * FROM ZPERSON;"

echo "== $people people" >&2
hyperfine -N --warmup 1 --runs "${RUNS:-5}" --output=pipe --export-json "$out/migrate.json" \
    --prepare "sh -c '$clean; $fresh'" \
    -n cdinspect "$bin/cdinspect migrate $store --model $model --to $migrated" \
    -n sqlite3 "sqlite3 $work '$shell_sql'" >&2
python3 - "$out/migrate.json" <<'PY'
import json, sys
results = {r["command"]: r["mean"] for r in json.load(open(sys.argv[1]))["results"]}
ours, theirs = results["cdinspect"], results["sqlite3"]
print(f"migrate (one added attribute): cdinspect {ours*1000:9.1f} ms   sqlite3 ALTER + copy {theirs*1000:9.1f} ms   ratio {ours/theirs:.2f}x")
PY
peak() { sh -c "$clean; $fresh"; /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
ours=$(peak "$bin/cdinspect" migrate "$store" --model "$model" --to "$migrated")
theirs=$(peak sqlite3 "$work" "$shell_sql")
echo "  peak memory (max RSS): cdinspect $((ours / 1024)) MB, sqlite3 $((theirs / 1024)) MB"
sh -c "$clean"; rm -f "$work" "$work-wal" "$work-shm"
