#!/usr/bin/env bash
# Every measured path in one run: `cdinspect fetch` in each format against the sqlite3
# shell printing the same rows in its nearest mode, with a predicate on wide rows (every
# attribute) and narrow ones (three keys), the session fetch (`-c`) against the one-shot
# fetch, `count` with and without a predicate, `entities` (also on 10 million people), the
# same on a store with a deep entity hierarchy, start-up (a count on the 50-person example store, and with a
# Swift predicate against its NSPredicate twin), and a batch update,
# on a store without persistent history and on one with it.
# Runs alternate between the two sides of each pair; each line prints both medians, the
# ratio and both peak memories.
#
#   Benchmarks/all.sh [PEOPLE]        (default 1000000; RUNS=5 by default)
#
# Release builds, with the Swift runtime linked statically as a shipped binary would be.
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
runs=${RUNS:-5}
uri="file:$store?mode=ro"
fetch_sql=$("$bin/cdinspect" explain "$store" Person | head -1)
small="$out/people-50.sqlite"
[ -f "$small" ] || "$bin/cdi-example-store" "$small" --people 50 --model Examples/People.xcdatamodeld >&2

# With a predicate (`age > 30`: 70% of the rows), on two shapes: wide rows (every attribute,
# the objects' own SQL) and narrow ones (three keys, against the shell printing the key and
# the three raw columns).
wide_sql=$("$bin/cdinspect" explain "$store" Person --where 'age > 30' | head -1 | sed 's/?/30/')
narrow_sql="SELECT t0.Z_PK, t0.ZNAME, t0.ZAGE, t0.ZBIRTHDAY FROM ZPERSON t0 WHERE t0.ZAGE > 30"
narrow="--keys name,age,birthday --where 'age > 30'"
# What entities counts, as the shell would count it at its fastest: each table's COUNT(*),
# and where entities share a table, the range of the Z_ENT index of each entity but the most
# numerous (cdinspect also counts the rows no entity owns, and samples 17 rows to find the
# most numerous).
entities_sql="SELECT COUNT(*) FROM ZPERSON; SELECT (SELECT COUNT(*) FROM ZCAR), (SELECT COUNT(*) FROM ZCAR WHERE Z_ENT = 2); SELECT COUNT(*) FROM ZTAG"
# `entities` on 10 million people (a 2 GB store, written once when missing; read warm).
big="$out/people-10000000.sqlite"
if [ ! -f "$big" ]; then
    echo "== writing 10000000 people to $big (2 GB, several minutes)" >&2
    "$bin/cdi-example-store" "$big" --people 10000000 --model Examples/People.xcdatamodeld >&2
fi

# A deep entity hierarchy (Benchmarks/Hierarchy.xcdatamodeld: six levels, nine entities in
# one table, as many objects as people): the root fetched whole, a middle entity (itself
# and its three levels of subentities) with a predicate, a count with a predicate, and
# entities. The shell runs the SQL cdinspect explains.
deep="$out/deep-$people.sqlite"
if [ ! -f "$deep" ]; then
    echo "== writing $people objects in a deep hierarchy to $deep" >&2
    "$bin/cdi-example-store" "$deep" --objects "$people" --model Benchmarks/Hierarchy.xcdatamodeld >&2
fi
# Every store starts as read from disk, as the main one does (`from_disk`, common.sh).
from_disk "$small" "$small-wal" "$big" "$big-wal" "$deep" "$deep-wal"
deep_uri="file:$deep?mode=ro"
deep_sql=$("$bin/cdinspect" explain "$deep" Item | head -1)
deep_where="--where 'byteCount > 300000'"
deep_where_sql=$("$bin/cdinspect" explain "$deep" Note --where 'byteCount > 300000' | head -1 | sed 's/?/300000/')
deep_count_sql=$("$bin/cdinspect" explain "$deep" Checklist --where 'itemCount > 10' | head -1 | sed -e 's/?/10/' -e 's/^SELECT .* FROM /SELECT COUNT(*) FROM /')
deep_entities_sql="SELECT (SELECT COUNT(*) FROM ZITEM)$(for id in 3 4 5 6 7 8 9 10; do printf ', (SELECT COUNT(*) FROM ZITEM WHERE Z_ENT = %s)' $id; done); SELECT COUNT(*) FROM ZFOLDER"

printf '%-22s %12s %12s %8s   %10s %10s\n' "work" "cdinspect" "other" "ratio" "peak ours" "peak other"
python3 Benchmarks/compare.py "$runs" \
    "fetch csv" "$bin/cdinspect fetch $store Person --format csv" "sqlite3 -csv -header $uri '$fetch_sql'" \
    "fetch json" "$bin/cdinspect fetch $store Person --format json" "sqlite3 -json $uri '$fetch_sql'" \
    "fetch line" "$bin/cdinspect fetch $store Person --format line" "sqlite3 -line $uri '$fetch_sql'" \
    "fetch table" "$bin/cdinspect fetch $store Person --format table" "sqlite3 -column -header $uri '$fetch_sql'" \
    "wide where csv" "$bin/cdinspect fetch $store Person --where 'age > 30' --format csv" "sqlite3 -csv -header $uri '$wide_sql'" \
    "wide where json" "$bin/cdinspect fetch $store Person --where 'age > 30' --format json" "sqlite3 -json $uri '$wide_sql'" \
    "narrow where csv" "$bin/cdinspect fetch $store Person $narrow --format csv" "sqlite3 -csv -header $uri '$narrow_sql'" \
    "narrow where json" "$bin/cdinspect fetch $store Person $narrow --format json" "sqlite3 -json $uri '$narrow_sql'" \
    "session vs one-shot" "$bin/cdinspect $store -c 'fetch Person --format csv'" "$bin/cdinspect fetch $store Person --format csv" \
    "count" "$bin/cdinspect count $store Person" "sqlite3 $uri 'SELECT COUNT(*) FROM ZPERSON'" \
    "count where" "$bin/cdinspect count $store Person --where 'age > 30'" "sqlite3 $uri 'SELECT COUNT(*) FROM ZPERSON WHERE ZAGE > 30'" \
    "count where (Swift)" "$bin/cdinspect count $store Person --where '{ \$0.age! > 30 }'" "sqlite3 $uri 'SELECT COUNT(*) FROM ZPERSON WHERE ZAGE > 30'" \
    "entities" "$bin/cdinspect entities $store" "sqlite3 $uri '$entities_sql'" \
    "entities (10M)" "$bin/cdinspect entities $big" "sqlite3 file:$big?mode=ro '$entities_sql'" \
    "deep fetch csv" "$bin/cdinspect fetch $deep Item --format csv" "sqlite3 -csv -header $deep_uri '$deep_sql'" \
    "deep where csv" "$bin/cdinspect fetch $deep Note $deep_where --format csv" "sqlite3 -csv -header $deep_uri '$deep_where_sql'" \
    "deep where json" "$bin/cdinspect fetch $deep Note $deep_where --format json" "sqlite3 -json $deep_uri '$deep_where_sql'" \
    "deep count where" "$bin/cdinspect count $deep Checklist --where 'itemCount > 10'" "sqlite3 $deep_uri '$deep_count_sql'" \
    "deep entities" "$bin/cdinspect entities $deep" "sqlite3 $deep_uri '$deep_entities_sql'"
# A start takes milliseconds, and a few runs of it measure the machine's moment more than the
# tool: forty times as many.
python3 Benchmarks/compare.py "$((runs * 40))" \
    "start-up (count, 50)" "$bin/cdinspect count $small Person" "sqlite3 file:$small?mode=ro 'SELECT COUNT(*) FROM ZPERSON'" \
    "start-up (Swift where)" "$bin/cdinspect count $small Person --where '#Predicate<Person> { \$0.age! > 30 && \$0.name.starts(with: \"d\") }'" \
        "$bin/cdinspect count $small Person --where 'age > 30 AND name BEGINSWITH \"d\"'"

# The batch update changes the store: each run starts from a fresh copy (copy time excluded).
# Twice: on the store without history, and on the same people in a store that keeps
# persistent history, where cdinspect also records a change per row (the shell's UPDATE
# records none: the line says what history costs).
work="$out/batch-work.sqlite"
update_sql="UPDATE OR FAIL ZPERSON AS t0 SET ZAGE = (t0.ZAGE + 1), Z_OPT = (Z_OPT + 1)"
with_history="$out/people-history-$people.sqlite"
if [ ! -f "$with_history" ]; then
    echo "== writing $people people with persistent history to $with_history" >&2
    "$bin/cdi-example-store" "$with_history" --people "$people" --model Examples/People.xcdatamodeld --history >&2
fi
for pair in "batch update|$store" "batch update (history)|$with_history"; do
python3 - "$runs" "${pair#*|}" "$work" "$bin/cdinspect" "$update_sql" "${pair%%|*}" <<'PY'
import os, shutil, statistics, sys, time
sys.path.insert(0, "Benchmarks")
from compare import run
runs, store, work, cdinspect, sql, name = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
sides = {"ours": [cdinspect, "batch-update", work, "Person", "--set", "age=age+1", "--result", "count"],
         "theirs": ["sqlite3", work, sql]}
times, peak = {"ours": [], "theirs": []}, {"ours": 0, "theirs": 0}
for _ in range(runs):
    for side, argv in sides.items():
        for suffix in ("-wal", "-shm"):
            if os.path.exists(work + suffix): os.remove(work + suffix)
        shutil.copyfile(store, work)
        t, rss = run(argv)
        times[side].append(t); peak[side] = max(peak[side], rss)
a, b = statistics.median(times["ours"]), statistics.median(times["theirs"])
print(f"{name:<22} {a*1000:9.1f} ms {b*1000:9.1f} ms {a/b:7.2f}x   {peak['ours']/1024:7.1f} MB {peak['theirs']/1024:7.1f} MB")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(work + suffix): os.remove(work + suffix)
PY
done
