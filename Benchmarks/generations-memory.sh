#!/usr/bin/env bash
# Peak memory of past generations on a large store: about 1 GB of people (the Examples
# generator) whose -wal holds about 100 MB of saves (about 25,000 frames), made by Python's
# sqlite3 module with the connection held open while the files are copied. Prints the size of
# each file and the peak memory (max RSS) of `generations` (every commit's pages read and its
# objects counted), a count at the middle generation and at the newest, each --immutable.
#
#   Benchmarks/generations-memory.sh [PEOPLE] [COMMITS]     (default 4000000 people, 8000 commits)
#
# Needs GNU time. Release builds, the Swift runtime linked statically. Takes a while: the
# store is written once and kept in Benchmarks/out.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-4000000}
commits=${2:-8000}
source Benchmarks/common.sh
walstore="$out/generations-$people-$commits.sqlite"
if [ ! -f "$walstore-wal" ]; then
    echo "== $commits saves into a copy of $store, left in its -wal" >&2
    python3 - "$store" "$walstore" "$commits" <<'PY'
import os, shutil, sqlite3, sys, tempfile
source, target, commits = sys.argv[1], sys.argv[2], int(sys.argv[3])
work = tempfile.mkdtemp(dir=os.path.dirname(target))
copy = os.path.join(work, "store.sqlite")
shutil.copy(source, copy)
db = sqlite3.connect(copy, isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint=0")
count = db.execute("SELECT max(Z_PK) FROM ZPERSON").fetchone()[0]
for n in range(commits):
    db.execute("BEGIN")
    for k in (1 + n * 7919 % count, 1 + n * 104729 % count, 1 + n * 1299709 % count):
        db.execute("UPDATE ZPERSON SET ZAGE = ZAGE + 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", (k,))
    db.execute("COMMIT")
for suffix in ("", "-wal"):
    shutil.copy(copy + suffix, target + suffix)
db.close()
shutil.rmtree(work)
PY
fi
echo "== store $(( $(stat -c %s "$walstore") / 1048576 )) MB, -wal $(( $(stat -c %s "$walstore-wal") / 1048576 )) MB" >&2
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
middle="w$(( commits / 2 ))"
echo "  peak memory (max RSS): generations $(( $(peak "$bin/cdinspect" generations "$walstore" --immutable) / 1024 )) MB," \
     "count at $middle $(( $(peak "$bin/cdinspect" count "$walstore" Person --generation "$middle") / 1024 )) MB," \
     "count at the newest $(( $(peak "$bin/cdinspect" count "$walstore" Person --immutable) / 1024 )) MB"
