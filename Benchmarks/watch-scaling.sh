#!/usr/bin/env bash
# What a commit costs a running `watch`, as the watched table grows: for each size (default
# 10,000 to 10,000,000 people) a store is written, `watch Person` starts, and once its first
# look is done, a writer commits 200 one-row updates 60 ms apart. The watcher's processor
# time over those commits (from /proc/PID/stat), divided by the commits, is the per-commit
# cost; it should stay flat, since a look reads only the rows on the pages a commit wrote.
# Also prints the watcher's resident memory, which grows with the rows (a hash per key).
#
#   Benchmarks/watch-scaling.sh [SIZE ...]
#
# Release builds, with the Swift runtime linked statically as a shipped binary would be.
set -euo pipefail
cd "$(dirname "$0")/.."
people=50
source Benchmarks/common.sh
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000 10000000)
python3 - "$bin/cdinspect" "$out" "${sizes[@]}" <<'PY'
import json, os, random, sqlite3, subprocess, sys, time
binary, out, sizes = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
ticks = os.sysconf("SC_CLK_TCK")

def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks

def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024

print(f"{'watched rows':>14} {'first look':>11} {'per commit':>11} {'looks':>6} {'rss':>8}")
for size in sizes:
    store = f"{out}/watch-{size}.sqlite"
    if not os.path.exists(store):
        subprocess.run([f"{os.path.dirname(binary)}/cdi-example-store", store, "--people", "10",
                        "--model", "Examples/People.xcdatamodeld"], check=True, stdout=subprocess.DEVNULL)
        db = sqlite3.connect(store)
        db.execute(f"""WITH RECURSIVE n(i) AS (SELECT 11 UNION ALL SELECT i + 1 FROM n WHERE i < {size})
            INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZISACTIVE, ZSCORE, ZBALANCE)
            SELECT i, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'), 1, 'person' || i, i % 90, 1, i * 0.5, i FROM n""")
        db.execute(f"UPDATE Z_PRIMARYKEY SET Z_MAX = {size} WHERE Z_NAME = 'Person'")
        db.commit()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
    events = f"{out}/watch-{size}.jsonl"
    started = time.perf_counter()
    watcher = subprocess.Popen([binary, "watch", store, "Person", "--format", "json"], stdout=open(events, "w"))
    writer = sqlite3.connect(store, timeout=10, isolation_level=None)
    def commit(key, age):
        writer.execute("UPDATE ZPERSON SET ZAGE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", (age, key))
    # The first look reads every row once: done when a commit shows (one made before it is
    # part of what it first saw, so commit until one shows).
    probe = 0
    while os.path.getsize(events) == 0:
        probe += 1
        commit(1, 100000 + probe)
        time.sleep(0.05)
    first = time.perf_counter() - started
    before = cpu(watcher.pid)
    rng = random.Random(1)
    for n in range(200):
        commit(rng.randrange(1, size + 1), 2000 + n)
        time.sleep(0.06)
    time.sleep(0.3)
    spent = cpu(watcher.pid) - before
    memory = rss(watcher.pid)
    watcher.terminate()
    watcher.wait()
    writer.close()
    looks = sum(1 for _ in open(events))
    print(f"{size:>14,} {first:>10.2f}s {spent / 200 * 1000:>9.2f}ms {looks:>6} {memory:>6} MB")
PY
