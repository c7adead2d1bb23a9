#!/bin/sh
# Before and after a UI test: keep the store as it is, let "the test" change it, list what it
# changed, and put the store back, as a test plan's set-up and tear-down would. The snapshot
# library goes into a folder of the script's own (XDG_DATA_HOME), not your home.
#
#   sh Examples/before-and-after.sh              (after 'swift build')
#   CDINSPECT=/usr/local/bin/cdinspect sh Examples/before-and-after.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cdinspect=${CDINSPECT:-$here/../.build/debug/cdinspect}
generator=${CDI_EXAMPLE_STORE:-$(dirname "$cdinspect")/cdi-example-store}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_DATA_HOME="$work/data"
store="$work/People.sqlite"

"$generator" "$store" --people 10 --model "$here/People.xcdatamodeld"

# Before: a snapshot named clean.
"$cdinspect" snapshot "$store" clean --format csv | cut -d, -f1,3,4

# The test: a new person, a birthday, a car sold (its owner's cars lose it).
"$cdinspect" "$store" -c "insert Person name=eve id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F age=30" \
    -c "update Person/p2 age=41" -c "delete Car/p3" -c save >/dev/null

# After: what changed since clean (exit 1: something did), one row per change.
"$cdinspect" diff clean "$store" --format csv | cut -d, -f1-4 || true

# Tear-down: the store back as clean had it, and nothing left to list.
"$cdinspect" restore "$store" clean >/dev/null
"$cdinspect" diff clean "$store" --format csv

# Seeding: two people from CSV, checked first (nothing written), then written as a save
# would write them, with persistent history and Z_PK from Z_PRIMARYKEY.
printf 'name,age,id\nzoe,31,3F2504E0-4F89-41D3-9A0C-0305E82C3301\nli,40,3F2504E0-4F89-41D3-9A0C-0305E82C3302\n' > "$work/seed.csv"
"$cdinspect" import "$store" "$work/seed.csv" --entity Person --dry-run
"$cdinspect" import "$store" "$work/seed.csv" --entity Person

# A new store of the same model holding the same objects: export, create, import.
"$cdinspect" model "$store" export "$work/model" >/dev/null
"$cdinspect" export "$store" --to "$work/all.json" >/dev/null
"$cdinspect" create "$work/Copy.sqlite" --model "$work/model/People.xcdatamodeld" >/dev/null
"$cdinspect" import "$work/Copy.sqlite" "$work/all.json"
