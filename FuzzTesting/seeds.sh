#!/usr/bin/env bash
# Writes each target's seed corpus into Corpus/TARGET from what the checkout and ../shared
# hold: every fixture store's model cache (inflated for the archive targets, raw for
# FuzzModelCache), its Z_METADATA plist and its transformable values, the model XML files,
# and the predicates of the conformance cases. Needs sqlite3 and python3.
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared
python3 - "$shared" <<'PY'
import glob, hashlib, json, os, sqlite3, sys, zlib
shared = sys.argv[1]
def put(target, data):
    if not data: return
    folder = f"Corpus/{target}"
    os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/{hashlib.sha1(data).hexdigest()}", "wb") as f: f.write(data)
stores = glob.glob(f"{shared}/fixtures/stores/**/*.sqlite", recursive=True) + glob.glob(f"{shared}/fixtures/stores/**/*.store", recursive=True)
for path in stores:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "Z_MODELCACHE" in tables:
            for (blob,) in db.execute("SELECT Z_CONTENT FROM Z_MODELCACHE"):
                if blob:
                    put("FuzzModelCache", bytes(blob))
                    try: put("FuzzKeyedArchive", zlib.decompress(bytes(blob), -15))
                    except zlib.error: pass
        if "Z_METADATA" in tables:
            for (blob,) in db.execute("SELECT Z_PLIST FROM Z_METADATA"):
                if blob: put("FuzzBinaryPlist", bytes(blob)); put("FuzzKeyedArchive", bytes(blob))
        for table in tables:
            if not table.startswith("Z") or table.startswith("Z_"): continue
            for column in [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if (r[2] or "").upper() == "BLOB"]:
                for (blob,) in db.execute(f'SELECT "{column}" FROM "{table}" WHERE substr("{column}", 1, 6) = CAST(\'bplist\' AS BLOB) LIMIT 20'):
                    put("FuzzKeyedArchive", bytes(blob)); put("FuzzBinaryPlist", bytes(blob))
    except sqlite3.DatabaseError:
        continue
for path in glob.glob(f"{shared}/fixtures/**/*contents*", recursive=True) + glob.glob("../Examples/**/contents", recursive=True) + glob.glob("../Benchmarks/**/contents", recursive=True):
    if os.path.isfile(path): put("FuzzModelXML", open(path, "rb").read())
for case in json.load(open(f"{shared}/conformance/predicate-cases.json")):
    put("FuzzNSPredicate", case["predicate"].encode())
for name in sorted(os.listdir("Corpus")):
    print(f"{name}: {len(os.listdir(f'Corpus/{name}'))} seeds")
PY
