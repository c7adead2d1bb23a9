#!/usr/bin/env bash
# Past generations (docs/generations.md), measured against cdinspect's own newest-state reads:
#   - `generations` on a store whose -wal holds about 4 MB (about 950 frames, 300 commits)
#     against `info` on the same store (both --immutable: nothing created beside the store);
#   - a fetch at a past generation against the same fetch at the newest;
#   - peak memory (max RSS) of `generations` and of a past-generation count.
# The saves are made by Python's sqlite3 module on a copy of the generator's store
# (`saves_in_wal`, common.sh).
#
#   Benchmarks/generations.sh [PEOPLE] [COMMITS]     (default 100000 people, 300 commits)
#
# Needs hyperfine and GNU time. Release builds, the Swift runtime linked statically.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-100000}
commits=${2:-300}
source Benchmarks/common.sh
walstore="$out/generations-$people-$commits.sqlite"
saves_in_wal "$walstore" "$commits"
wal_kb=$(( $(stat -c %s "$walstore-wal") / 1024 ))
last=$("$bin/cdinspect" generations "$walstore" --immutable --format csv | tail -1 | cut -d, -f1)
middle="w$(( commits / 2 ))"
echo "== $people people, a -wal of $wal_kb KB, generations w0…$last" >&2
hyperfine -N --warmup 2 --runs "${RUNS:-10}" --output=pipe --export-json "$out/generations.json" \
    -n info "$bin/cdinspect info $walstore --immutable" \
    -n generations "$bin/cdinspect generations $walstore --immutable" \
    -n fetch-newest "$bin/cdinspect fetch $walstore Person --where 'age > 80' --limit 2000 --keys name,age --format csv --immutable" \
    -n fetch-past "$bin/cdinspect fetch $walstore Person --where 'age > 80' --limit 2000 --keys name,age --format csv --generation $middle" >&2
python3 - "$out/generations.json" "$middle" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"generations {r['generations']*1000:8.1f} ms   info {r['info']*1000:8.1f} ms   ratio {r['generations']/r['info']:.2f}x")
print(f"fetch at {sys.argv[2]} {r['fetch-past']*1000:8.1f} ms   at the newest {r['fetch-newest']*1000:8.1f} ms   ratio {r['fetch-past']/r['fetch-newest']:.2f}x")
PY
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
echo "  peak memory (max RSS): generations $(( $(peak "$bin/cdinspect" generations "$walstore" --immutable) / 1024 )) MB, count at $middle $(( $(peak "$bin/cdinspect" count "$walstore" Person --generation "$middle") / 1024 )) MB"
