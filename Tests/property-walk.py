#!/usr/bin/env python3
"""The property walk (`PropertyWalk`) against Core Data's own stores, end to end.

    BIN=.build/debug/cdinspect python3 Tests/property-walk.py STORE...

For each store with a model cache: its model exported (`model export`), a store created from it
(`create`), and two things compared with the store Core Data wrote: every join table's name
(`Z_<n><RELATIONSHIP>`, which of a many-to-many pair names it), and, on every table with more
than one order key (`Z_FOK_`), their order. Prints the counts and each miss. Stores are opened
immutable (nothing written beside them). Not part of the suite: the stores of a version series
(Wire's, DuckDuckGo's) are not in the repository; `PropertyWalkTests` checks the fixtures'.

A table a migration kept keeps the order keys of the layout that made it: Wire's
`ZGENERICMESSAGEDATA` from 2.83.0 on has 2.82.0's order, where its own model's walk gives
another; such misses are history, not layout.
"""
import glob
import os
import sqlite3
import subprocess
import sys
import tempfile

BIN = os.environ.get("BIN", ".build/debug/cdinspect")


def tables(path):
    db = sqlite3.connect("file:%s?immutable=1" % path, uri=True)
    try:
        return dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
    finally:
        db.close()


def order_keys(path, table):
    db = sqlite3.connect("file:%s?immutable=1" % path, uri=True)
    try:
        return [row[1] for row in db.execute("SELECT * FROM pragma_table_info(?)", (table,)) if row[1].startswith("Z_FOK_")]
    finally:
        db.close()


def main(stores):
    joins = [0, 0]
    keys = [0, 0]
    misses = []
    for store in stores:
        folder = tempfile.mkdtemp()
        exported = subprocess.run([BIN, "model", "--immutable", store, "export", folder + "/model"], capture_output=True, text=True)
        bundles = glob.glob(folder + "/model/*.xcdatamodeld")
        if exported.returncode or not bundles:
            print("skipped (no model cache): " + store)
            continue
        created = subprocess.run([BIN, "create", folder + "/created.sqlite", "--model", bundles[0]], capture_output=True, text=True)
        if created.returncode:
            misses.append("%s: create refused: %s" % (os.path.basename(store), created.stderr.strip()))
            continue
        theirs, ours = tables(store), tables(folder + "/created.sqlite")
        for table in theirs:
            if table.startswith("Z_") and table[2:3].isdigit():
                joins[1] += 1
                if table in ours:
                    joins[0] += 1
                else:
                    misses.append("%s: join table %s not made" % (os.path.basename(store), table))
            elif theirs[table] and not table.startswith("Z_") and table in ours:
                genuine = order_keys(store, table)
                if len(genuine) > 1:
                    keys[1] += 1
                    mine = order_keys(folder + "/created.sqlite", table)
                    if mine == genuine:
                        keys[0] += 1
                    else:
                        misses.append("%s: %s order keys %s, ours %s" % (os.path.basename(store), table, " ".join(genuine), " ".join(mine)))
    print("join tables named as Core Data named them: %d of %d" % tuple(joins))
    print("tables with several order keys in Core Data's order: %d of %d" % tuple(keys))
    for miss in misses:
        print("  " + miss)


if __name__ == "__main__":
    main(sys.argv[1:])
