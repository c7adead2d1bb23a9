#!/usr/bin/env bash
# Peak memory of past generations on a large store: about 1 GB of people (the Examples
# generator) whose -wal holds about 100 MB of saves (about 25,000 frames), made by Python's
# sqlite3 module. Prints the size of
# each file and the peak memory (max RSS) of `generations` (every commit's pages read and its
# objects counted), a count at the middle generation and at the newest, each --immutable.
# The saves: `saves_in_wal` (common.sh).
#
#   Benchmarks/generations-memory.sh [PEOPLE] [COMMITS]     (default 5500000 people, 8000 commits)
#
# Needs GNU time. Release builds, the Swift runtime linked statically. Takes a while: the
# store is written once and kept in Benchmarks/out.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-5500000}
commits=${2:-8000}
source Benchmarks/common.sh
walstore="$out/generations-$people-$commits.sqlite"
saves_in_wal "$walstore" "$commits"
echo "== store $(( $(stat -c %s "$walstore") / 1048576 )) MB, -wal $(( $(stat -c %s "$walstore-wal") / 1048576 )) MB" >&2
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
middle="w$(( commits / 2 ))"
echo "  peak memory (max RSS): generations $(( $(peak "$bin/cdinspect" generations "$walstore" --immutable) / 1024 )) MB," \
     "count at $middle $(( $(peak "$bin/cdinspect" count "$walstore" Person --generation "$middle") / 1024 )) MB," \
     "count at the newest $(( $(peak "$bin/cdinspect" count "$walstore" Person --immutable) / 1024 )) MB"
