#!/usr/bin/env bash
# What a running `watch` costs the app it watches: a writer commits 3,000 times, one row a
# transaction, and checkpoints with TRUNCATE every 100 commits (an app that keeps its -wal
# small), first alone and then with `cdinspect watch Person` following the store, each on a
# fresh copy of a small store. Rounds alternate the two; prints both medians, the ratio, and
# the checkpoints a reader kept from finishing (which must be none).
#
#   Benchmarks/watch-overhead.sh [ROUNDS]        (default 5)
#
# Release builds, with the Swift runtime linked statically as a shipped binary would be.
set -euo pipefail
cd "$(dirname "$0")/.."
people=50
source Benchmarks/common.sh
python3 - "$bin/cdinspect" "$store" "$out" "${1:-5}" <<'PY'
import os, shutil, sqlite3, statistics, subprocess, sys, time
binary, source, out, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def fresh(name):
    path = f"{out}/watch-overhead-{name}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix): os.remove(path + suffix)
    shutil.copyfile(source, path)
    return path

def write(store):
    """The app: 3,000 commits, an update every 7th, a delete every 50th, TRUNCATE every 100th."""
    db = sqlite3.connect(store, timeout=10, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    person = db.execute("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'").fetchone()[0]
    busy = 0
    started = time.perf_counter()
    for i in range(3000):
        key = 1000 + i
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZISACTIVE) VALUES (?, ?, 1, ?, ?, 1)",
                   (key, person, f"w{i}", i % 100))
        if i % 7 == 0:
            db.execute("UPDATE ZPERSON SET ZAGE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = 1", (1000 + i,))
        if i % 50 == 49:
            db.execute("DELETE FROM ZPERSON WHERE Z_PK = ?", (key - 30,))
        db.execute("COMMIT")
        if i % 100 == 99 and db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] != 0:
            busy += 1
    seconds = time.perf_counter() - started
    db.close()
    return seconds, busy

alone, watched, busy = [], [], 0
for n in range(rounds):
    seconds, b = write(fresh("alone"))
    alone.append(seconds); busy += b
    store = fresh("watched")
    watcher = subprocess.Popen([binary, "watch", store, "Person", "--format", "json"], stdout=subprocess.DEVNULL)
    time.sleep(1)  # the first look reads every row once
    seconds, b = write(store)
    watched.append(seconds); busy += b
    watcher.terminate()
    watcher.wait()
a, w = statistics.median(alone), statistics.median(watched)
print(f"writer alone {a*1000:8.1f} ms   watched {w*1000:8.1f} ms   ratio {w/a:.2f}x   "
      f"checkpoints kept from finishing: {busy}   (medians of {rounds})")

# How soon a commit shows: 40 one-row updates 0.25 s apart, each timed from its COMMIT's
# return to the watcher's line.
import threading
store = fresh("latency")
watcher = subprocess.Popen([binary, "watch", store, "Person", "--format", "json"], stdout=subprocess.PIPE)
arrivals = []
threading.Thread(target=lambda: [arrivals.append(time.perf_counter()) for _ in watcher.stdout], daemon=True).start()
time.sleep(1)
db = sqlite3.connect(store, timeout=10, isolation_level=None)
commits = []
for n in range(40):
    db.execute("UPDATE ZPERSON SET ZAGE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = 1", (500 + n,))
    commits.append(time.perf_counter())
    time.sleep(0.25)
watcher.terminate()
watcher.wait()
delays = sorted((a - c) * 1000 for a, c in zip(arrivals, commits))
print(f"commit to event: median {statistics.median(delays):.1f} ms, max {delays[-1]:.1f} ms "
      f"({len(arrivals)} events for {len(commits)} commits)")
PY
