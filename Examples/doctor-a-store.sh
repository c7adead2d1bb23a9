#!/bin/sh
# Examine a store the way a support engineer would: break a copy of the example store in two
# ways an app meets in the field (a primary-key counter behind its rows, after a hand-made
# import; a required name left NULL by a raw SQL write), ask doctor what is wrong, then ask
# whether the rows survive a next model version that makes birthdays required.
#
#   sh Examples/doctor-a-store.sh              (after 'swift build')
#   CDINSPECT=/usr/local/bin/cdinspect sh Examples/doctor-a-store.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cdinspect=${CDINSPECT:-$here/../.build/debug/cdinspect}
generator=${CDI_EXAMPLE_STORE:-$(dirname "$cdinspect")/cdi-example-store}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$generator" "$work/People.sqlite" --people 10 --model "$here/People.xcdatamodeld"

# The defects, written behind Core Data's back (cdinspect's own writes keep the model's
# rules, and its sql is read-only): Python's sqlite3 module plays the raw SQL writer.
python3 - "$work/People.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 7 WHERE Z_NAME = 'Person'")
db.execute("UPDATE ZPERSON SET ZNAME = NULL WHERE Z_PK = 4")
db.execute("UPDATE ZPERSON SET ZBIRTHDAY = NULL WHERE Z_PK = 9")
db.commit()
PY

# What is wrong, and what the app meets because of it (exit 1: there are errors).
"$cdinspect" doctor "$work/People.sqlite" --format csv 2>/dev/null | grep -E '^section|^health' || true

# The next version makes birthday required: which rows would its migration reject?
mkdir -p "$work/Next.xcdatamodel"
sed 's/<attribute name="birthday" optional="YES"/<attribute name="birthday"/' \
    "$here/People.xcdatamodeld/People.xcdatamodel/contents" > "$work/Next.xcdatamodel/contents"
"$cdinspect" doctor "$work/People.sqlite" --model "$work/Next.xcdatamodel" --format json 2>/dev/null \
    | python3 -c 'import json, sys; [print(f["check"], f["entity"], f["property"], f["count"]) for f in json.load(sys.stdin)["migration"]]'
