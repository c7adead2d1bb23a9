#!/usr/bin/env python3
"""Scores `cdinspect recover` on the public SQLite forensic corpus (Nemetz, Schmitt, Freiling,
DFRWS EU 2018; CC0): per category, how many of the deleted rows whose bytes are still in the
file it lists with their values (recall), and how many of its reports are deleted rows
(precision).

A report counts as a deleted row when it equals that row on every value it gives and gives at
least half of the row's non-null values (the rule past-and-deleted.md measured the other tools
with). A deleted row is "in the file" when the bytes of its record's values (as SQLite lays
them out: integers big-endian in their smallest size, reals as 8 bytes, texts as UTF-8) are
somewhere in the file.

    forensic-corpus.py CDINSPECT CORPUS_DIR [CATEGORY...]     (default 0A 0B 0C 0D 0E)
"""
import json, os, shutil, struct, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

def rows(xml_path):
    """(table, deleted, {column: text or None}) for every row of the ground truth."""
    root = ET.parse(xml_path).getroot()
    for element in root.iter("element"):
        meta = element.find("meta")
        if meta is None or meta.findtext("type") != "table":
            continue
        table = meta.findtext("name")
        # A table the file no longer has (dropped): every row of it is a deleted one.
        dropped = (meta.findtext("deleted") or "").strip().lower() == "true"
        entries = element.find("entries")
        if entries is None:
            continue
        for row in entries.iter("row"):
            values = {}
            for column in row.iter("column"):
                content = column.find("content")
                values[column.findtext("name")] = None if content is None or content.text is None else content.text
            yield table, dropped or row.get("deleted") == "1", values

def value_bytes(text):
    """The bytes SQLite's record holds for a value given as text (best effort)."""
    if text is None:
        return b""
    try:
        number = int(text)
        if number in (0, 1):
            return b""
        for size, fmt in ((1, ">b"), (2, ">h"), (3, None), (4, ">i"), (6, None), (8, ">q")):
            low, high = -(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1
            if low <= number <= high:
                return number.to_bytes(size, "big", signed=True)
    except ValueError:
        pass
    try:
        real = float(text)
        if any(c in text for c in ".eE"):
            return struct.pack(">d", real)
    except ValueError:
        pass
    return text.encode("utf-8")

def same(reported, truth):
    if reported is None:
        return truth is None
    if truth is None:
        return False
    if isinstance(reported, bool):
        reported = int(reported)
    if isinstance(reported, (int, float)):
        try:
            return float(reported) == float(truth)
        except ValueError:
            return False
    return str(reported) == truth

def matches(report, truth):
    given = {k: v for k, v in report.items() if v is not None}
    if not all(k in truth and same(v, truth[k]) for k, v in given.items()):
        return False
    nonnull = [k for k, v in truth.items() if v is not None]
    return len([k for k in given if k in nonnull]) * 2 >= len(nonnull)

def main():
    binary, corpus = sys.argv[1], sys.argv[2]
    categories = sys.argv[3:] or ["0A", "0B", "0C", "0D", "0E"]
    base = os.path.join(corpus, "sqlite_forensic_corpus_v1.0")
    totals = {}
    for category in categories:
        folder = os.path.join(base, category)
        t = totals.setdefault(category, {"deleted": 0, "in_file": 0, "found": 0, "reports": 0, "correct": 0, "failed": 0})
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".db"):
                continue
            db = os.path.join(folder, name)
            data = open(db, "rb").read()
            truth = list(rows(db[:-3] + ".xml"))
            deleted = [(table, values) for table, gone, values in truth if gone]
            live = [(table, values) for table, gone, values in truth if not gone]
            with tempfile.TemporaryDirectory() as work:
                copy = os.path.join(work, name)
                shutil.copy(db, copy)
                run = subprocess.run([binary, "recover", copy, "--format", "json"], capture_output=True, text=True)
            if run.returncode != 0:
                t["failed"] += 1
                print(f"  {name}: {run.stderr.strip()}", file=sys.stderr)
                continue
            reports = [r for r in json.loads(run.stdout or "[]") if r.get("state") == "deleted"]
            t["reports"] += len(reports)
            for report in reports:
                values = report.get("values") or {}
                table = report.get("table") or report.get("entity")
                if any(matches(values, row) for tname, row in deleted if tname == table) and \
                   not any(all(same(v, row.get(k)) for k, v in values.items()) and len(values) == len(row) for tname, row in live if tname == table):
                    t["correct"] += 1
            for table, row in deleted:
                t["deleted"] += 1
                body = b"".join(value_bytes(v) for v in row.values())
                if len(body) >= 4 and body not in data:
                    continue
                t["in_file"] += 1
                if any(matches(r.get("values") or {}, row) for r in reports if (r.get("table") or r.get("entity")) == table):
                    t["found"] += 1
    def line(label, t):
        recall = t["found"] / t["in_file"] if t["in_file"] else 0
        precision = t["correct"] / t["reports"] if t["reports"] else 1
        print(f"{label:10} deleted {t['deleted']:4}  in file {t['in_file']:4}  listed {t['found']:4}  recall {recall:.2f}  "
              f"reports {t['reports']:4}  precision {precision:.2f}  failed {t['failed']}")
    for category in categories:
        line(category, totals[category])
    for label, group in (("0C+0D+0E", ["0C", "0D", "0E"]), ("0A+0B", ["0A", "0B"])):
        if all(c in totals for c in group):
            line(label, {k: sum(totals[c][k] for c in group) for k in totals[group[0]]})

if __name__ == "__main__":
    main()
