#!/usr/bin/env bash
# `snapshot` against the sqlite3 shell's `.backup` of the same store, `diff` of two
# copies with 1% of the people changed against the shell's two EXCEPT queries over the
# people and car tables (B attached), and `import` of the $PEOPLE people as CSV (every
# attribute) into a new empty store against the shell's `.import` of the same file into the
# same new store (the shell makes its table from the header: its fastest path, no keys, no
# checks), on the store of $PEOPLE people. Each run starts from a fresh output folder (its
# removal and the empty store's copy excluded). Prints both medians, the ratio and both
# peak memories, as all.sh does.
#
#   Benchmarks/snapshot-and-diff.sh [PEOPLE]        (default 1000000; RUNS=5 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
runs=${RUNS:-5}
changed="$out/people-$people-changed.sqlite"
if [ ! -f "$changed" ]; then
    echo "== copying $store with 1% of the people changed to $changed" >&2
    sqlite3 "$store" ".backup $changed"
    sqlite3 "$changed" "UPDATE ZPERSON SET ZAGE = ZAGE + 1, Z_OPT = Z_OPT + 1 WHERE Z_PK % 100 = 0"
fi
import_inputs
except="ATTACH '$changed' AS b;
SELECT * FROM main.ZPERSON EXCEPT SELECT * FROM b.ZPERSON; SELECT * FROM b.ZPERSON EXCEPT SELECT * FROM main.ZPERSON;
SELECT * FROM main.ZCAR EXCEPT SELECT * FROM b.ZCAR; SELECT * FROM b.ZCAR EXCEPT SELECT * FROM main.ZCAR;"
python3 - "$runs" "$bin/cdinspect" "$store" "$changed" "$out/snapshot-work" "$except" "$csv" "$empty" <<'PY'
import os, shlex, shutil, statistics, sys, time
runs, cdinspect, store, changed, work, except_sql, csv, empty = int(sys.argv[1]), *sys.argv[2:]

def run(argv, accepted):
    """Wall time and peak memory (KiB) of one run, output to /dev/null (as compare.py)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) not in accepted:
        sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {shlex.join(argv)}")
    return elapsed, usage.ru_maxrss

# diff exits 1 when the stores differ, as these do.
pairs = {
    "snapshot": ([cdinspect, "snapshot", store, "--to", work + "/ours"], ["sqlite3", store, f".backup {work}/theirs.sqlite"], {0}),
    "diff (1% changed)": ([cdinspect, "diff", store, changed, "--format", "csv"], ["sqlite3", "-csv", f"file:{store}?mode=ro", except_sql], {1}),
    "import (CSV)": ([cdinspect, "import", work + "/import-ours.sqlite", csv, "--entity", "Person"],
                     ["sqlite3", work + "/import-theirs.sqlite", f".import --csv {csv} PEOPLE"], {0}),
}
def fresh(name):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # Only the import writes into an existing store (the empty one); the snapshot's and the
    # backup's destinations must not exist, or the backup would go through that store's -wal.
    if name.startswith("import"):
        for side in ("ours", "theirs"):
            shutil.copyfile(empty, f"{work}/import-{side}.sqlite")
for name, (ours, theirs, accepted) in pairs.items():
    times, peak = {"ours": [], "theirs": []}, {"ours": 0, "theirs": 0}
    for i in range(runs + 1):
        for side, argv in (("ours", ours), ("theirs", theirs)):
            fresh(name)
            t, rss = run(argv, accepted if side == "ours" else {0})
            if i == 0: continue  # warm-up: both read the stores once
            times[side].append(t); peak[side] = max(peak[side], rss)
    a, b = statistics.median(times["ours"]), statistics.median(times["theirs"])
    print(f"{name:<22} {a*1000:9.1f} ms {b*1000:9.1f} ms {a/b:7.2f}x   {peak['ours']/1024:7.1f} MB {peak['theirs']/1024:7.1f} MB")
shutil.rmtree(work, ignore_errors=True)
PY
