# Sourced by the benchmark scripts: checks the tools, builds release binaries (the Swift
# runtime linked statically, as a shipped binary would be) and writes the store of
# $people people once, into $store.
for tool in hyperfine sqlite3 /usr/bin/time python3; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install hyperfine sqlite3 time python3)" >&2; exit 1; }
done

out=Benchmarks/out
mkdir -p "$out"
store="$out/people-$people.sqlite"

# BUILT=DIR measures binaries built elsewhere (another commit's `make build`, to compare two
# in the same conditions); by default this checkout is built.
built=${BUILT:-.build-bench/release}
if [ -z "${BUILT:-}" ]; then
    echo "== building (release, as make install builds it)" >&2
    make -s build BUILD_PATH=.build-bench >&2
fi
# Run as the README installs them: copied by install(1). The copy starts faster than the
# file the linker wrote (0.3-0.5 ms of a 5 ms count, same bytes, `perf stat -r 100`),
# which is not what a user runs.
bin="$out/bin"
install -d "$bin" && install -m 755 "$built/cdinspect" "$built/cdi-example-store" "$bin/"

if [ ! -f "$store" ]; then
    echo "== writing $people people to $store" >&2
    "$bin/cdi-example-store" "$store" --people "$people" --model Examples/People.xcdatamodeld >&2
fi

# Start both tools from a store as it is read from disk, the way an existing store is
# inspected: `from_disk FILE…` writes out and drops each from the page cache, and the first
# (warm-up) runs read it back. Pages written moments ago stay cached in 4 KiB pieces, which a
# memory map (cdinspect reads through one) faults in one at a time; read from disk they come
# back in larger pieces (on `entities` with 10 million people, 0.13 s against 0.43 s; the
# map asks for them, `WindowedMappingVFS.adviseLargePages`). The sqlite3 shell reads with
# pread(2) and is the same either way. CACHE=as-written skips this, to measure the other case.
from_disk() {
    [ "${CACHE:-}" != "as-written" ] || return 0
    local file
    for file in "$@"; do
        # Dirty pages are not dropped: written out first. An `if`, not `[ … ] &&`: a store
        # without a -wal would end the loop, and the script under `set -e`, with a failure.
        if [ -f "$file" ]; then sync "$file"; dd if="$file" iflag=nocache count=0 status=none; fi
    done
}
from_disk "$store" "$store-wal"

# `import_inputs`: the people of $store as CSV (every attribute) in $csv, and an empty store of
# the example's model in $empty, each written once, for the import benchmarks.
import_inputs() {
    csv="$out/people-$people.csv"
    if [ ! -f "$csv" ]; then
        echo "== writing the people of $store as CSV to $csv" >&2
        sqlite3 -csv -header "file:$store?mode=ro" "SELECT ZNAME AS name, ZAGE AS age, ZBALANCE AS balance,
            strftime('%Y-%m-%dT%H:%M:%SZ', ZBIRTHDAY + 978307200, 'unixepoch') AS birthday, ZHOMEPAGE AS homepage,
            substr(hex(ZID), 1, 8) || '-' || substr(hex(ZID), 9, 4) || '-' || substr(hex(ZID), 13, 4) || '-' || substr(hex(ZID), 17, 4) || '-' || substr(hex(ZID), 21) AS id,
            ZISACTIVE AS isActive, ZSCORE AS score FROM ZPERSON ORDER BY Z_PK" > "$csv"
    fi
    empty="$out/people-empty.sqlite"
    if [ ! -f "$empty" ]; then
        "$bin/cdinspect" create "$empty" --model Examples/People.xcdatamodeld >/dev/null
        sqlite3 "$empty" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    fi
}

# `saves_in_wal TARGET COMMITS`: a copy of $store at TARGET whose -wal holds COMMITS saves of
# three people each (three leaves far apart), made by Python's sqlite3 module with the
# connection held open while the files are copied (closing it would checkpoint). Written once.
saves_in_wal() {
    local target=$1 commits=$2
    [ -f "$target-wal" ] && return 0
    echo "== $commits saves into a copy of $store, left in its -wal" >&2
    python3 - "$store" "$target" "$commits" <<'PY'
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
}
