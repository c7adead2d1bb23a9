#!/usr/bin/env bash
# Compares `cdinspect fetch … --format csv` and `cdinspect count` with the sqlite3 shell
# running the same SQL on the same store: a million people written by the Examples
# generator. Prints each tool's mean time, the ratio, and each tool's peak memory.
#
#   Benchmarks/fetch-and-count.sh [PEOPLE]        (default 1000000)
#
# Needs hyperfine and GNU time (apt-get install hyperfine time). Release builds, with the
# Swift runtime linked statically as a shipped binary would be.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
uri="file:$store?mode=ro"

# The SQL cdinspect runs, taken from cdinspect itself so both tools run the same statement.
fetch_sql=$("$bin/cdinspect" explain "$store" Person | head -1)
count_sql="SELECT COUNT(*) FROM ZPERSON"

peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

compare() {
    local name=$1 ours=$2 theirs=$3
    hyperfine -N --warmup 2 --runs "${RUNS:-10}" --output=pipe --export-json "$out/$name.json" \
        -n cdinspect "$ours" -n sqlite3 "$theirs" >&2
    python3 - "$out/$name.json" "$name" <<'PY'
import json, sys
results = {r["command"]: r["mean"] for r in json.load(open(sys.argv[1]))["results"]}
ours, theirs = results["cdinspect"], results["sqlite3"]
print(f"{sys.argv[2]:>6}: cdinspect {ours*1000:9.1f} ms   sqlite3 {theirs*1000:9.1f} ms   ratio {ours/theirs:.2f}x")
PY
}

echo "== $people rows" >&2
compare fetch "$bin/cdinspect fetch $store Person --format csv" "sqlite3 -csv -header $uri '$fetch_sql'"
compare count "$bin/cdinspect count $store Person" "sqlite3 $uri '$count_sql'"

fetch_ours=$(peak "$bin/cdinspect" fetch "$store" Person --format csv)
fetch_theirs=$(peak sqlite3 -csv -header "$uri" "$fetch_sql")
count_ours=$(peak "$bin/cdinspect" count "$store" Person)
count_theirs=$(peak sqlite3 "$uri" "$count_sql")
echo "  peak memory (max RSS): fetch cdinspect $((fetch_ours / 1024)) MB, sqlite3 $((fetch_theirs / 1024)) MB;" \
     "count cdinspect $((count_ours / 1024)) MB, sqlite3 $((count_theirs / 1024)) MB"
