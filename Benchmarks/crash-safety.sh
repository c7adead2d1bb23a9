#!/usr/bin/env bash
# What the crash-safe write protocol (docs/crash-safety.md) costs: this build against a
# release build of the commit before it (OLD=DIR, a `make build` of that commit; without it
# only this build and the shell are timed) and the sqlite3 shell, alternating, each run on a
# fresh copy of its input store (the copy excluded):
#
# - import of $PEOPLE people as CSV (every attribute) into a new empty store, against the
#   shell's `.import` of the same file;
# - a session's save of 1,000 updated people in the store of $PEOPLE people, against the
#   shell's UPDATE of the same rows in one transaction;
# - import of 1,000 people with a 200 KB photo each (stored externally, as Core Data stores
#   them) into a new empty store, against the shell inserting the same rows with the photos
#   in the column; then the share of that import's wall time its fsync calls (the external
#   files and their folder) take: the import traced as it is and with fsync skipped.
#
#   OLD=/path/to/old/.build-bench/release Benchmarks/crash-safety.sh [PEOPLE]   (default 1000000; RUNS=5;
#   CASES=photos runs only the cases whose name holds it)
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
runs=${RUNS:-5}
old=""
if [ -n "${OLD:-}" ]; then
    install -d "$out/old" && install -m 755 "$OLD/cdinspect" "$out/old/" && old="$out/old/cdinspect"
fi
import_inputs
photos="$out/photos-1000.json"
photo_dir="$out/photos-1000"
if [ ! -f "$photos" ]; then
    echo "== writing 1,000 people with a 200 KB photo each to $photos (and each photo to $photo_dir)" >&2
    python3 - "$photos" "$photo_dir" <<'PY'
import base64, json, os, random, sys
random.seed(7)
os.makedirs(sys.argv[2], exist_ok=True)
with open(sys.argv[1], "w") as f:
    f.write("[")
    for i in range(1000):
        photo = random.randbytes(204_800)
        open(f"{sys.argv[2]}/photo{i}.bin", "wb").write(photo)
        f.write(("," if i else "") + json.dumps({"name": f"photo{i}", "id": "3F2504E0-4F89-41D3-9A0C-%012d" % i, "age": 20 + i % 60,
                                                  "photo": base64.b64encode(photo).decode()}))
    f.write("]")
PY
fi
person=$(sqlite3 "$empty" "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'")
insert_photos="PRAGMA synchronous = FULL; BEGIN; INSERT INTO ZPERSON (Z_ENT, Z_OPT, ZNAME, ZAGE, ZPHOTO)
    SELECT $person, 1, 'photo' || value, 20 + value % 60, x'01' || readfile('$photo_dir/photo' || value || '.bin') FROM generate_series(0, 999); COMMIT;"
script="$out/save-1000.cdi"
python3 -c "import sys; print(''.join(f'update Person/p{i} age={20 + i % 50}\n' for i in range(1, 2001, 2)) + 'save')" > "$script"
update="BEGIN; UPDATE ZPERSON SET ZAGE = 20 + (Z_PK % 50), Z_OPT = Z_OPT + 1 WHERE Z_PK < 2001 AND Z_PK % 2 = 1; COMMIT;"

python3 - "$runs" "$bin/cdinspect" "$old" "$store" "$csv" "$empty" "$photos" "$script" "$update" "$insert_photos" "$out/crash-work" <<'PY'
import os, shlex, shutil, statistics, subprocess, sys, time
runs, new, old, store, csv, empty, photos, script, update, insert_photos, work = int(sys.argv[1]), *sys.argv[2:]

def run(argv, stdin=None):
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    if stdin:
        source = os.open(stdin, os.O_RDONLY)
        actions.append((os.POSIX_SPAWN_DUP2, source, 0))
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    os.close(devnull)
    if stdin: os.close(source)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {shlex.join(argv)}")
    return elapsed

def fresh(source):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    target = f"{work}/People.sqlite"
    subprocess.run(["sqlite3", source, f".backup {target}"], check=True)
    subprocess.run(["sqlite3", target, "PRAGMA journal_mode=WAL"], check=True, capture_output=True)
    return target

sides = [("this", new)] + ([("before", old)] if old else [])
cases = {
    "import 1M (CSV)": (empty, lambda b, s: ([b, "import", s, csv, "--entity", "Person"], None),
                        lambda s: (["sqlite3", s, f".import --csv {csv} PEOPLE"], None)),
    "save of 1,000 updates": (store, lambda b, s: ([b, s], script), lambda s: (["sqlite3", s, update], None)),
    "import 1,000 photos": (empty, lambda b, s: ([b, "import", s, photos, "--entity", "Person"], None),
                            lambda s: (["sqlite3", s, insert_photos], None)),
}
print(f"{'':<24} {'this':>12} {'before':>12} {'sqlite3':>12}   this/before  this/sqlite3")
only = os.environ.get("CASES", "")
for name, (source, ours, theirs) in cases.items():
    if only and only not in name: continue
    times = {side: [] for side, _ in sides}
    times["sqlite3"] = []
    for i in range(runs + 1):
        for side, binary in sides:
            argv, stdin = ours(binary, fresh(source))
            t = run(argv, stdin)
            if i: times[side].append(t)
        argv, stdin = theirs(fresh(source))
        t = run(argv, stdin)
        if i: times["sqlite3"].append(t)
    m = {k: statistics.median(v) for k, v in times.items() if v}
    before = f"{m['before']*1000:9.1f} ms" if "before" in m else f"{'-':>12}"
    ratio = f"{m['this']/m['before']:11.3f}x" if "before" in m else f"{'-':>12}"
    print(f"{name:<24} {m['this']*1000:9.1f} ms {before} {m['sqlite3']*1000:9.1f} ms   {ratio} {m['this']/m['sqlite3']:11.2f}x", flush=True)

# The syncs' share of the photo import: the same import traced with strace twice, once as it
# is and once with every fsync answered 0 without running (`inject=fsync:retval=0`), three
# runs each, alternating; the difference of the medians is what the syncs of the files and
# their folder cost. (SQLite's own syncs are fdatasync calls, left to run in both.)
def traced(skip):
    target = fresh(empty)
    argv = ["strace", "-f", "--seccomp-bpf", "-qq", "-o", "/dev/null", "-e", "trace=fsync"] + (["-e", "inject=fsync:retval=0"] if skip else [])
    return run(argv + [new, "import", target, photos, "--entity", "Person"])
synced, skipped = [], []
for _ in range(3):
    synced.append(traced(False)); skipped.append(traced(True))
a, b = statistics.median(synced), statistics.median(skipped)
print(f"syncs in the photo import (strace, fsync run or skipped, medians of 3): {a*1000:.1f} ms with, {b*1000:.1f} ms without: "
      f"{(a - b) * 1000:.1f} ms, {(a - b) / a * 100:.1f}% of the import")
shutil.rmtree(work, ignore_errors=True)
PY
