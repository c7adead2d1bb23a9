#!/usr/bin/env bash
# Compares `cdinspect batch-update` with the sqlite3 shell running the equivalent UPDATE on
# the same store: a million people written by the Examples generator, copied afresh before
# every run (both tools change it). Prints each tool's mean time, the ratio, and each
# tool's peak memory.
#
#   Benchmarks/batch-update.sh [PEOPLE]        (default 1000000)
#
# Needs hyperfine and GNU time (apt-get install hyperfine time). Release builds, with the
# Swift runtime linked statically as a shipped binary would be.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
work="$out/batch-work.sqlite"
fresh="cp $store $work && rm -f $work-wal $work-shm"

# The statement cdinspect runs for `--set age=age+1`, with the value written in.
update_sql="UPDATE OR FAIL ZPERSON AS t0 SET ZAGE = (t0.ZAGE + 1), Z_OPT = (Z_OPT + 1)"

echo "== $people rows" >&2
hyperfine -N --warmup 1 --runs "${RUNS:-5}" --output=pipe --export-json "$out/batch-update.json" \
    --prepare "sh -c '$fresh'" \
    -n cdinspect "$bin/cdinspect batch-update $work Person --set age=age+1 --result count" \
    -n sqlite3 "sqlite3 $work '$update_sql'" >&2
python3 - "$out/batch-update.json" <<'PY'
import json, sys
results = {r["command"]: r["mean"] for r in json.load(open(sys.argv[1]))["results"]}
ours, theirs = results["cdinspect"], results["sqlite3"]
print(f"batch-update: cdinspect {ours*1000:9.1f} ms   sqlite3 {theirs*1000:9.1f} ms   ratio {ours/theirs:.2f}x")
PY

peak() { sh -c "$fresh"; /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
ours=$(peak "$bin/cdinspect" batch-update "$work" Person --set age=age+1 --result count)
theirs=$(peak sqlite3 "$work" "$update_sql")
echo "  peak memory (max RSS): cdinspect $((ours / 1024)) MB, sqlite3 $((theirs / 1024)) MB"
rm -f "$work" "$work-wal" "$work-shm"
