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
