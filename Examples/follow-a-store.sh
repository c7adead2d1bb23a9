#!/bin/sh
# Follow a store while another process writes to it: a watcher prints every change as JSON
# Lines, naming who made it (the store keeps persistent history), while a second cdinspect
# inserts, updates and deletes a person.
#
#   sh Examples/follow-a-store.sh              (after 'swift build')
#   CDINSPECT=/usr/local/bin/cdinspect sh Examples/follow-a-store.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cdinspect=${CDINSPECT:-$here/../.build/debug/cdinspect}
generator=${CDI_EXAMPLE_STORE:-$(dirname "$cdinspect")/cdi-example-store}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A fresh example store with persistent history on.
"$generator" "$work/People.sqlite" --people 5 --history --model "$here/People.xcdatamodeld"

# The watcher: stops by itself after three changes (or after 30 seconds).
"$cdinspect" watch "$work/People.sqlite" Person --format json --limit 3 --timeout 30 &
watcher=$!
sleep 1

# The other process, one commit at a time.
"$cdinspect" "$work/People.sqlite" -c 'context set author importer' \
    -c 'insert Person name=Ada id=6F9619FF-8B86-D011-B42D-00C04FC964FF age=36' -c save > /dev/null
sleep 0.3
"$cdinspect" batch-update "$work/People.sqlite" Person --set 'age=age+1' --where 'name == "Ada"' > /dev/null
sleep 0.3
"$cdinspect" batch-delete "$work/People.sqlite" Person --where 'name == "Ada"' > /dev/null

wait "$watcher"
# What the store's history says about the same three writes.
"$cdinspect" history "$work/People.sqlite" --format csv
