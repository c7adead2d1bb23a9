#!/usr/bin/env bash
# `history --changes --format json` on a store with CHANGES history changes (default
# 2,000,000, ten per transaction, a third of them updates with a ZCOLUMNS bitmap) against
# the sqlite3 shell printing the same rows with -json from a plain join of ACHANGE,
# ATRANSACTION and the interned strings. Prints both medians, the ratio and both peak
# memories (compare.py): cdinspect streams, so its peak stays flat whatever the count.
#
#   Benchmarks/history.sh [CHANGES]        (RUNS=5 by default)
#
# Release builds, with the Swift runtime linked statically as a shipped binary would be.
set -euo pipefail
cd "$(dirname "$0")/.."
changes=${1:-2000000}
people=1000
source Benchmarks/common.sh
runs=${RUNS:-5}
history="$out/history-$changes.sqlite"
if [ ! -f "$history" ]; then
    echo "== writing $changes history changes to $history" >&2
    rm -f "$history" "$history-wal" "$history-shm"
    "$bin/cdi-example-store" "$history" --people "$people" --history --model Examples/People.xcdatamodeld >&2
    transactions=$(( (changes + 9) / 10 ))
    sqlite3 "$history" <<SQL
BEGIN;
DELETE FROM ACHANGE; DELETE FROM ATRANSACTION;
INSERT OR IGNORE INTO ATRANSACTIONSTRING(Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (101, 16003, 1, 'app'), (102, 16003, 1, 'viewContext'), (103, 16003, 1, 'com.example.app');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $transactions)
INSERT INTO ATRANSACTION(Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
    SELECT i, 16002, 1, 101, 103, 102, 101, 700000000 + i * 0.25 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $changes - 1)
INSERT INTO ACHANGE(Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
    SELECT i + 1, 16001, 1, i % 3, 3, i % $people + 1, i / 10 + 1, CASE i % 3 WHEN 1 THEN x'2040' END FROM n;
UPDATE Z_PRIMARYKEY SET Z_MAX = $changes WHERE Z_ENT = 16001;
UPDATE Z_PRIMARYKEY SET Z_MAX = $transactions WHERE Z_ENT = 16002;
COMMIT;
SQL
fi
uri="file:$history?mode=ro"
join_sql="SELECT t.Z_PK AS token, t.ZTIMESTAMP AS timestamp, a.ZNAME AS author, x.ZNAME AS contextName,
 b.ZNAME AS bundleID, p.ZNAME AS processID, c.ZCHANGETYPE AS type, c.ZENTITY AS entity, c.ZENTITYPK AS primaryKey,
 hex(c.ZCOLUMNS) AS updated
 FROM ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID
 LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING x ON x.Z_PK = t.ZCONTEXTNAMETS
 LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
 ORDER BY c.ZTRANSACTIONID, c.Z_PK"
join_sql=$(echo "$join_sql" | tr '\n' ' ')

printf '%-22s %12s %12s %8s   %10s %10s\n' "work" "cdinspect" "other" "ratio" "peak ours" "peak other"
python3 Benchmarks/compare.py "$runs" \
    "history --changes json" "$bin/cdinspect history $history --changes --format json" "sqlite3 -json $uri '$join_sql'"
