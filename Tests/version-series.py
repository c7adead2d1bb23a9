#!/usr/bin/env python3
"""create and migrate over a genuine version series, compared with Core Data's own stores.

Usage: BIN=.build/debug/cdinspect python3 Tests/version-series.py WIRE_CHECKOUT

WIRE_CHECKOUT is a checkout of wireapp/wire-ios-data-model: its Resources/zmessaging.xcdatamodeld
holds every model version, its Tests/Resources/store*.wiredatabase a store Core Data wrote at
each version (each migrated in place from the one before, so each keeps what earlier
migrations left). For every store whose model is there:

- create: `cdinspect create` from that version's model, its schema compared with the store's
  (columns with types and their order in each table, each CREATE TABLE's text, every
  index's name and SQL, Z_PRIMARYKEY, the version hashes in the metadata);
- migrate: the previous version's store migrated to this model (`--to`), compared the same
  way, and `doctor` on it: no error kind the source did not have;
- model diff: the store's cache against its model file: nothing, or what the file changed
  after the store was made.

Each difference is put in a class with the reason Core Data's store has it and ours does not;
what fits no class is printed as unexplained. Exit status 1 when anything is unexplained.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

BIN = os.environ.get("BIN", ".build/debug/cdinspect")


def schema(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    facts = set()
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                               "AND name NOT IN ('Z_METADATA','Z_MODELCACHE','Z_PRIMARYKEY')"):
        for row in db.execute("SELECT name, type FROM pragma_table_info(?)", (table,)):
            facts.add(("column", "%s.%s %s" % (table, row[0], row[1])))
    for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL"):
        facts.add(("index", "%s: %s" % (name, sql)))
    for row in db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY"):
        facts.add(("entity", "%s %s %s" % row))
    db.close()
    return facts


def column_orders(path):
    """Each table's columns in the order its CREATE TABLE gives them."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return {t: [r[0] for r in db.execute("SELECT name FROM pragma_table_info(?) ORDER BY cid", (t,))]
                for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")}
    finally:
        db.close()


def table_statements(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"))
    finally:
        db.close()


def statement_differences(statements, genuine_framework, migrated, orders):
    """Tables with the same columns in the same order whose CREATE TABLE text differs. SQLite
    rewrites a statement in place: `RENAME TO` quotes the table's name, `ADD COLUMN` appends
    ` , ZNEW TYPE` before the closing parenthesis. A `create` cannot have that history; a
    migration by today's Core Data (977 and later) must give the same text. `statements`: each
    store's CREATE TABLE by table (Core Data's, ours)."""
    explained, unexplained = {}, []
    g, o = statements
    go, oo = orders
    for table in sorted(g):
        if table not in o or g[table] == o[table] or go.get(table) != oo.get(table):
            continue
        rewritten = g[table].startswith('CREATE TABLE "') or " , " in g[table]
        if rewritten and (not migrated or genuine_framework < 977):
            why = "a CREATE TABLE as SQLite rewrote it in an in-place migration (RENAME TO quotes the name, ADD COLUMN appends)"
            explained[why] = explained.get(why, 0) + 1
        elif migrated and genuine_framework < 977 and (o[table].startswith('CREATE TABLE "') or " , " in o[table]):
            why = ("a table Core Data before framework 977 made anew, where today's keeps it: renamed in place (SQLite quotes "
                   "the name) or its new columns added at its end (the order happens to be the same)")
            explained[why] = explained.get(why, 0) + 1
        else:
            unexplained.append("CREATE TABLE of %s: Core Data's %s, ours %s" % (table, g[table], o[table]))
    return explained, unexplained


def order_differences(g, o, genuine_framework, source=None, layout=None, earlier=(), statements=({}, {})):
    """Tables with the same columns in another order, given each store's column orders (`g`
    Core Data's, `o` ours): (explained, unexplained).

    `ours` is a new layout (create) or a migration of `source`; `layout` is the new layout of
    the same model; `earlier` the column orders of the series' earlier stores. An in-place
    migration adds a column at the end of its table: Core Data's order is ours with the
    columns that some earlier store lacked moved to the end. Core Data before framework 977
    made a changed table anew in the layout's order, where today's (and `migrate`) keeps it
    and adds the new columns at its end. A join table renamed in place (its statement quoted
    by SQLite), now named after the other relationship of its pair, keeps its columns where
    they stood. Order keys keep the order of the version whose layout made their table.
    `statements`: each store's CREATE TABLE by table (Core Data's, ours)."""
    explained, unexplained = {}, []
    s = column_orders(source) if source else {}
    fresh = column_orders(layout) if layout else {}
    for table in sorted(g):
        if table not in o or g[table] == o[table] or set(g[table]) != set(o[table]):
            continue
        mine, theirs = o[table], g[table]
        non_fok = lambda cs: [c for c in cs if not c.startswith("Z_FOK_")]
        fok = lambda cs: [c for c in cs if c.startswith("Z_FOK_")]
        quoted = lambda which: statements[which].get(table, "").startswith('CREATE TABLE "')
        # Core Data's order keys as an earlier store of the series has them: the table was made
        # then, by that version's layout, and kept since.
        fok_kept = non_fok(theirs) == non_fok(mine) and any(table in e and fok(e[table]) == fok(theirs) for e in earlier)
        added_later = {c for c in theirs if any(table in e and c not in e[table] for e in earlier)}
        tail = 0
        while tail < len(theirs) and theirs[len(theirs) - 1 - tail] in added_later:
            tail += 1
        moved = set(theirs[len(theirs) - tail:])
        # Ours kept the source's table: its columns where they were (or renamed there), the new at the end.
        kept = table in s and len(mine) >= len(s[table]) and all(a == b or b not in mine for a, b in zip(mine, s[table]))
        if source and kept and theirs == fresh.get(table) and genuine_framework < 977:
            why = "a table Core Data before framework 977 made anew in the layout's order, where today's keeps it and adds the new columns at its end"
        elif source and quoted(1) and not quoted(0) and genuine_framework < 977 and table.startswith("Z_"):
            why = ("a join table now named after the other relationship of its pair, which Core Data before framework 977 made anew, "
                   "where today's renames it in place with its columns where they stood")
        elif quoted(0) and table.startswith("Z_") and (not source or genuine_framework < 977):
            why = "a join table Core Data renamed in place, now named after the other relationship of its pair: its columns where they stood"
        elif tail and theirs[:len(theirs) - tail] == [c for c in mine if c not in moved] and not (source and table in s):
            why = "columns an in-place migration added at the end of the table (ALTER TABLE … ADD COLUMN), where a new layout orders them by kind"
        elif fok_kept and (not source or genuine_framework < 977):
            why = "order-key columns (Z_FOK_) in the order of the version whose layout made their table, kept by in-place migrations"
        else:
            unexplained.append("column order of %s: Core Data's %s, ours %s" % (table, " ".join(theirs), " ".join(mine)))
            continue
        explained[why] = explained.get(why, 0) + 1
    return explained, unexplained


def classify(kind, fact, ours):
    """Why Core Data's store has a fact ours has not; None when unexplained."""
    if kind == "index":
        name, sql = fact.split(": ", 1)
        on = re.search(r' ON ("?)([^ "]+)\1 \((.*)\)$', sql)
        if not on:
            return None
        quoted, table, columns = on.groups()
        if quoted:
            return "index on a table Core Data renamed in place (SQLite quotes the new name)"
        if not name.startswith("Z_"):
            return "index in the form Core Data before framework 847 made (<TABLE>_<COLUMN>_INDEX), kept by later migrations"
        join = re.match(r"^Z_(\d+)([A-Z0-9]+)_Z_(\d+)", name)
        if join and table != "Z_%s%s" % (join.group(1), join.group(2)):
            return "join-table index named for an earlier entity number, kept by an in-place migration"
        if join and not columns.startswith("Z_%s" % join.group(3)):
            return "join-table index whose columns Core Data renumbered in place"
        if any(k == "index" and re.search(r' ON "?%s"? \(%s\)$' % (re.escape(table), re.escape(columns)), f) for k, f in ours):
            return "a second index over the columns of one ours has (a sub-entity's copy of its parent's, which some caches hold)"
    if kind == "column":
        table = fact.split(".")[0]
        if any(k == "column" and f.startswith(table + ".") for k, f in ours):
            return "column of an attribute the model dropped; Core Data's in-place migration leaves it"
    return None


def row_differences(genuine, ours, source):
    """Core Data's rows against ours, over the columns both have: (explained, unexplained).

    Rows are matched by Z_PK (join tables as sets of pairs). A row whose Z_OPT differs was saved
    again by the app after Core Data migrated it; a value only Core Data's row has, in a column
    the source's table did not have, is a new attribute the app set after the migration. Neither
    is something a migration writes."""
    genuine_framework = framework(genuine)
    db = sqlite3.connect("file:%s?mode=ro" % genuine, uri=True)
    db.execute("ATTACH ? AS o", ("file:%s?mode=ro" % ours,))
    db.execute("ATTACH ? AS s", ("file:%s?mode=ro" % source,))
    explained, unexplained = {}, []
    tables = [r[0] for r in db.execute("SELECT name FROM main.sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                                       "AND name NOT IN ('Z_METADATA','Z_MODELCACHE') ORDER BY name")]
    for table in tables:
        theirs = [r[0] for r in db.execute("SELECT name FROM pragma_table_info(?, 'main')", (table,))]
        mine = {r[0] for r in db.execute("SELECT name FROM pragma_table_info(?, 'o')", (table,))}
        before = {r[0] for r in db.execute("SELECT name FROM pragma_table_info(?, 's')", (table,))}
        common = [c for c in theirs if c in mine]
        if not common:
            continue
        listed = ", ".join('"%s"' % c for c in common)
        def differing(x, y):
            return db.execute('SELECT count(*) FROM (SELECT %s FROM %s."%s" EXCEPT SELECT %s FROM %s."%s")' % (listed, x, table, listed, y, table)).fetchone()[0]
        if "Z_PK" not in common:
            a, b = differing("main", "o"), differing("o", "main")
            if a or b:
                if all(c in before for c in common) and differing("o", "s") == 0 and differing("s", "o") == 0:
                    why = "rows ours carried from the source as they were, where Core Data's store holds other data (%s)" % table
                    explained[why] = explained.get(why, 0) + 1
                else:
                    unexplained.append("%s: %d rows only Core Data's, %d only ours" % (table, a, b))
            continue
        g = {r[0]: r for r in db.execute('SELECT %s FROM main."%s"' % (listed, table))}
        o = {r[0]: r for r in db.execute('SELECT %s FROM o."%s"' % (listed, table))}
        kept = [c for c in common if c in before]
        src = {r[0]: dict(zip(kept, r)) for r in db.execute('SELECT %s FROM s."%s"' % (", ".join('"%s"' % c for c in kept), table))} if "Z_PK" in kept else {}
        inserted = set(g) - set(o) - set(src) if src else set()
        if inserted:
            why = "objects the app inserted after migrating, not in the source (%s)" % table
            explained[why] = explained.get(why, 0) + len(inserted)
        lost, extra = set(g) - set(o) - inserted, {k for k in set(o) - set(g) if k not in src}
        deleted = (set(o) - set(g)) - extra
        if deleted:
            why = "objects ours carried from the source that Core Data's store no longer has (deleted by the app) (%s)" % table
            explained[why] = explained.get(why, 0) + len(deleted)
        if lost or extra:
            unexplained.append("%s: %d source rows ours lost, %d rows ours made up" % (table, len(lost), len(extra)))
        version = common.index("Z_OPT") if "Z_OPT" in common else None
        for key in set(g) & set(o):
            if version is not None and g[key][version] != o[key][version]:
                # Saved again after the migration (its version moved on): the app's change.
                why = "rows the app saved again after migrating (Z_OPT moved on) (%s)" % table
                explained[why] = explained.get(why, 0) + 1
                continue
            for i, column in enumerate(common):
                if g[key][i] == o[key][i]:
                    continue
                if column not in before and g[key][i] is None and genuine_framework < 977:
                    why = ("a new column's default in rows of other entities of the table, which Core Data before "
                           "framework 977 left NULL (%s.%s; from 977 on, every row takes it)" % (table, column))
                    explained[why] = explained.get(why, 0) + 1
                elif column not in before and o[key][i] is None:
                    why = "values of a new attribute the app set after migrating (%s.%s)" % (table, column)
                    explained[why] = explained.get(why, 0) + 1
                elif column in before and key in src and src[key][column] == o[key][i]:
                    why = "values ours carried from the source as they were, where Core Data's store holds other data (%s)" % table
                    explained[why] = explained.get(why, 0) + 1
                else:
                    unexplained.append("%s.%s of Z_PK %s: Core Data's %r, ours %r" % (table, column, key, g[key][i], o[key][i]))
    db.close()
    return explained, unexplained


def bare(columns):
    return re.sub(r" COLLATE BINARY ASC", "", columns)


def classify_ours(kind, fact, genuine, genuine_framework=None):
    """Why ours has a fact Core Data's store has not; None when unexplained."""
    if kind == "index" and genuine_framework is not None and genuine_framework < 977 and re.search(r' ON "[^"]+" \(', fact):
        return ("index kept on a join table renamed in place, as Core Data since framework 977 renames it "
                "(an earlier one, which migrated this store, made the table anew)")
    if kind == "index":
        on = re.search(r' ON ("?)([^ "]+)\1 \((.*)\)$', fact)
        if on and any(k == "index" and (lambda o: o and o.group(2) == on.group(2) and bare(o.group(3)) == bare(on.group(3)))(
                re.search(r' ON ("?)([^ "]+)\1 \((.*)\)$', f)) for k, f in genuine):
            return "the same index as one of Core Data's, named as Core Data since framework 847 names it (the store was written before)"
    return None


def compare(genuine, ours, genuine_framework=None):
    g, o = schema(genuine), schema(ours)
    explained, unexplained = {}, []
    for only, reason, other, owner in [(g - o, classify, o, "Core Data's store has "), (o - g, classify_ours, g, "ours has ")]:
        for kind, fact in sorted(only):
            why = reason(kind, fact, other) if reason is classify else reason(kind, fact, other, genuine_framework)
            if why:
                explained[why] = explained.get(why, 0) + 1
            else:
                unexplained.append(owner + kind + " " + fact)
    return explained, unexplained


def against(genuine, ours, drifted, source=None, layout=None, earlier=()):
    """Core Data's store against ours: the schema compared, and the version hashes, which differ
    only where the model file was edited after the store was made."""
    version = framework(genuine)
    explained, unexplained = compare(genuine, ours, version)
    orders = column_orders(genuine), column_orders(ours)
    statements = table_statements(genuine), table_statements(ours)
    for more, odd in [order_differences(*orders, version, source, layout, earlier, statements),
                      statement_differences(statements, version, source is not None, orders)]:
        for why, n in more.items():
            explained[why] = explained.get(why, 0) + n
        unexplained += odd
    if stored_hashes(ours) != stored_hashes(genuine):
        if drifted:
            explained["version hashes differ: the model file was edited after this store was made (model diff lists how)"] = 1
        else:
            unexplained.append("the version hashes in the metadata differ")
    return explained, unexplained


def summary(explained, unexplained):
    if not explained:
        return "equal" if not unexplained else "differs"
    return ("equal but for " if not unexplained else "differs: ") + "; ".join("%d %s" % (n, why) for why, n in explained.items())


def cdinspect(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def version_of(store):
    info = cdinspect("info", store).stdout
    m = re.search(r"NSStoreModelVersionIdentifiers\s*:\s*(\S+)", info)
    return m.group(1) if m else None


def framework(store):
    info = cdinspect("info", store).stdout
    m = re.search(r"frameworkVersion\s*:\s*(\d+)", info)
    return int(m.group(1)) if m else 0


def uuid(store):
    db = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    try:
        return db.execute("SELECT Z_UUID FROM Z_METADATA").fetchone()[0]
    finally:
        db.close()


def stored_hashes(store):
    out = cdinspect("model", store, "hashes", "--format", "csv").stdout.splitlines()
    return {line.split(",")[0]: line.split(",")[2] for line in out[1:]}


def doctor_errors(store):
    out = cdinspect("doctor", store, "--format", "csv").stdout.splitlines()
    return {tuple(line.split(",")[1:4]) for line in out[1:] if line.startswith("error,")}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    models = os.path.join(root, "Resources", "zmessaging.xcdatamodeld")
    stores = [f for f in os.listdir(os.path.join(root, "Tests", "Resources")) if f.endswith(".wiredatabase")]
    stores.sort(key=lambda f: [int(x) for x in re.findall(r"\d+", f)])
    work = tempfile.mkdtemp(prefix="version-series-")
    failures = 0
    totals = {"create": [0, 0], "migrate": [0, 0]}
    previous = None
    earlier = []
    seen = set()
    for name in stores:
        store = os.path.join(work, name.replace(".wiredatabase", ".sqlite"))
        shutil.copy(os.path.join(root, "Tests", "Resources", name), store)
        version = version_of(store)
        model = os.path.join(models, "zmessaging%s.xcdatamodel" % version)
        if not version or not os.path.isdir(model) or version in seen:
            print("%-28s %-8s skipped (%s)" % (name, version, "model not in the repository" if version not in seen else "a version already seen"))
            continue
        seen.add(version)
        diff = cdinspect("model", store, "diff", model, "--format", "csv")
        changed = diff.stdout.splitlines()[1:] if diff.returncode == 1 else []
        created = os.path.join(work, "created-%s.sqlite" % version)
        run = cdinspect("create", created, "--model", model)
        lines = []
        if run.returncode != 0:
            lines.append("create refused: " + run.stderr.strip())
            failures += 1
        else:
            explained, unexplained = against(store, created, drifted=bool(changed), earlier=earlier)
            totals["create"][0 if not unexplained else 1] += 1
            failures += bool(unexplained)
            lines.append("create: " + summary(explained, unexplained))
            lines += ["  unexplained: " + u for u in unexplained]
        if previous:
            source = os.path.join(work, "source.sqlite")
            shutil.copy(previous[0], source)
            migrated = os.path.join(work, "migrated-%s.sqlite" % version)
            run = cdinspect("migrate", source, "--model", model, "--to", migrated)
            if run.returncode != 0:
                lines.append("migrate %s → %s refused: %s" % (previous[1], version, run.stderr.strip()))
            else:
                explained, unexplained = against(store, migrated, drifted=bool(changed),
                                                 source=previous[0], layout=created, earlier=earlier)
                new_errors = doctor_errors(migrated) - doctor_errors(previous[0])
                totals["migrate"][0 if not unexplained and not new_errors else 1] += 1
                failures += bool(unexplained) + bool(new_errors)
                lines.append("migrate %s → %s: %s" % (previous[1], version, summary(explained, unexplained)))
                lines += ["  unexplained: " + u for u in unexplained]
                if uuid(previous[0]) == uuid(store):
                    # The same store, migrated by Core Data: its rows against ours.
                    explained_rows, odd = row_differences(store, migrated, previous[0])
                    lines.append("  rows: " + (summary(explained_rows, odd)))
                    lines += ["    unexplained: " + u for u in odd[:10]] + (["    … and %d more" % (len(odd) - 10)] if len(odd) > 10 else [])
                    failures += bool(odd)
                lines += ["  doctor error the source had not: %s" % (e,) for e in sorted(new_errors)]
        lines.append("model diff cache → file: " + ("nothing" if not changed else "%d changes (%s)" % (len(changed), "; ".join(c.split(",")[0] + "." + c.split(",")[1] + " " + c.split(",")[3] for c in changed[:3]))))
        print("%-28s %-8s" % (name, version))
        for line in lines:
            print("    " + line)
        previous = (store, version)
        earlier.append(column_orders(store))
    print("create: %d versions with nothing unexplained, %d with something" % tuple(totals["create"]))
    print("migrate: %d pairs with nothing unexplained, %d with something" % tuple(totals["migrate"]))
    shutil.rmtree(work)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
