#!/usr/bin/env bash
# Writes each target's seed corpus into Corpus/TARGET from what the checkout and ../shared
# hold: every fixture store's model cache (inflated for the archive targets, raw for
# FuzzModelCache), its Z_METADATA plist, its transformable values and its JSON values, the
# model XML files, the predicates of the conformance cases and the Swift ones of the tests,
# the SQL debug log lines of the reference and the tests, the example store's export and
# fetches as import files (a first byte choosing the import's options: ImportFuzzing), HTTP
# requests of a signed-in browser, MCP lines, and the fixture stores under 1 MB whole.
# Needs python3 and a debug build of cdinspect (for the import files; `swift build`).
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared
cdinspect=../.build/debug/cdinspect
[ -x "$cdinspect" ] || (cd .. && swift build --product cdinspect)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp ../Examples/People.sqlite "$scratch/People.sqlite"
"$cdinspect" export "$scratch/People.sqlite" > "$scratch/export.json"
for entity in Person Car Tag; do
    "$cdinspect" fetch "$scratch/People.sqlite" "$entity" --format json --limit 20 > "$scratch/$entity.json"
    "$cdinspect" fetch "$scratch/People.sqlite" "$entity" --format csv --limit 20 > "$scratch/$entity.csv"
done
python3 - "$shared" "$scratch" <<'PY'
import glob, hashlib, json, os, re, sqlite3, sys, zlib
shared, scratch = sys.argv[1], sys.argv[2]
def put(target, data):
    if not data: return
    folder = f"Corpus/{target}"
    os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/{hashlib.sha1(data).hexdigest()}", "wb") as f: f.write(data)
stores = [p for pattern in ("sqlite", "store", "db") for p in glob.glob(f"{shared}/fixtures/stores/**/*.{pattern}", recursive=True)]
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
for path in glob.glob("../Tests/**/xcmapping.xml", recursive=True):
    put("FuzzMappingModel", open(path, "rb").read())
for case in json.load(open(f"{shared}/conformance/predicate-cases.json")):
    put("FuzzNSPredicate", case["predicate"].encode())
for path in glob.glob("../Tests/**/*.swift", recursive=True):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r'"(#Predicate<\w+> \{[^"\\]*(?:\\.[^"\\]*)*)"', text):
        put("FuzzSwiftPredicate", m.group(1).replace('\\"', '"').encode())
    for line in text.splitlines():
        if "CoreData: " in line: put("FuzzSQLDebugLog", line.strip().strip('"').encode())
for case in ['{ $0.age > 30 }', '{ person in person.name.starts(with: "dave") && person.age ?? 0 >= 18 }',
             '#Predicate<Person> { $0.cars.contains(where: { $0.year > 2000 }) }', '#Predicate<Person> { !$0.tags.isEmpty || $0.score < 1.5 }']:
    put("FuzzSwiftPredicate", case.encode())
reference = open(f"{shared}/reference/sqldebug-log.md", encoding="utf-8").read()
put("FuzzSQLDebugLog", "\n".join(l for l in reference.splitlines() if "CoreData: " in l).encode())
for line in reference.splitlines():
    if "CoreData: " in line: put("FuzzSQLDebugLog", line.strip("` ").encode())
# Import files, each after the byte that chooses the options (entity: 0 none, 1 Person, 2 Car,
# 3 Tag; 4 upsert; 8 link Car.owner by name; 16 skip-invalid; 32 dry run).
put("FuzzImportJSON", bytes([0]) + open(f"{scratch}/export.json", "rb").read())
put("FuzzImportJSON", bytes([32]) + open(f"{scratch}/export.json", "rb").read())
for choice, entity in [(1, "Person"), (2, "Car"), (3, "Tag"), (5, "Person"), (6, "Car"), (17, "Person")]:
    put("FuzzImportJSON", bytes([choice]) + open(f"{scratch}/{entity}.json", "rb").read())
    put("FuzzImportCSV", bytes([choice]) + open(f"{scratch}/{entity}.csv", "rb").read())
put("FuzzImportJSON", bytes([2 | 8 | 4]) + b'[{"name": "Fiat", "plate": "CD-000001", "year": 1999, "owner": "dave3"}, {"name": "Ka", "plate": "N-1", "owner": "dave4"}]')
put("FuzzImportCSV", bytes([2 | 8]) + b'name,plate,year,owner\nFiat,XX-1,2001,dave1\n"Ka, red","X""2",,dave2\n')
put("FuzzImportCSV", bytes([1]) + b'name,age,birthday,balance,isActive,score,id\nann,30,2001-02-03T04:05:06Z,12.50,true,1.5,11111111-1111-4111-8111-111111111111\n')
# JSON values of SwiftData stores (Codable properties, composites).
for path in stores:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'").fetchall():
            for column in [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if (r[2] or "").upper() == "BLOB"]:
                for (blob,) in db.execute(f'SELECT "{column}" FROM "{table}" WHERE substr("{column}", 1, 1) IN (CAST(\'[\' AS BLOB), CAST(\'{{\' AS BLOB)) LIMIT 10'):
                    put("FuzzSwiftDataJSON", bytes(blob))
    except sqlite3.DatabaseError:
        continue
for text in ['{"street":"1 Main","city":"Springfield","zip":12345}', '[1,2.5,"x",null,true,{"a":[]}]', '"\\u00e9\\ud83d\\ude00"', '-0.0e+10']:
    put("FuzzSwiftDataJSON", text.encode())
# HTTP requests of a signed-in browser (the fixed token of the HTTP target), and of others.
token, csrf = "ab" * 32, "cd" * 32
signed = f"Host: 127.0.0.1:4242\r\nCookie: cdinspect-browse-4242={token}\r\n"
post = signed + "Sec-Fetch-Site: same-origin\r\nOrigin: http://127.0.0.1:4242\r\nContent-Type: application/x-www-form-urlencoded\r\n"
def request(method, target, headers, body=b""):
    head = f"{method} {target} HTTP/1.1\r\n{headers}"
    if body: head += f"Content-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body
for target in ["/", "/Person", "/Person?where=age%20%3E%2030&sort=name", "/Person.json", "/Car.csv", "/Person/p1", "/Person/p1/cars", "/Person/p1.json", "/model",
               "/history", "/doctor", "/changes", "/-/static/app.css", "/-/static/app.js", "/-/events", "/Person?page=2&keys=name,age"]:
    put("FuzzHTTPRequest", request("GET", target, signed))
put("FuzzHTTPRequest", request("GET", f"/-/login?token={token}", "Host: 127.0.0.1:4242\r\n"))
put("FuzzHTTPRequest", request("GET", "/Person", "Host: evil.example\r\n"))
for fields in [f"csrf={csrf}&object=Person%2Fp2&key=age&value=77", f"csrf={csrf}&object=Person%2Fp1&key=name&value=%22zed%22",
               f"csrf={csrf}&object=Car%2Fp3&key=owner&value=Person%2Fp4"]:
    edit = request("POST", "/-/edit", post, fields.encode())
    put("FuzzHTTPRequest", edit)
    put("FuzzHTTPRequest", edit + request("POST", "/-/save", post, f"csrf={csrf}".encode()))
put("FuzzHTTPRequest", request("POST", "/-/discard", post, f"csrf={csrf}".encode()))
put("FuzzHTTPRequest", request("GET", "/", signed) + request("GET", "/Tag", signed))
# MCP lines, after the byte that chooses the line limit and read sizes (FuzzMCPLine).
lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}, "clientInfo": {"name": "fuzz", "version": "1"}}},
         {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": "a", "method": "tools/list"},
         {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "fetch", "arguments": {"entity": "Person", "where": "age > 30"}}},
         {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}, {"jsonrpc": "2.0", "id": None, "method": "ping"}]
stream = b"".join(json.dumps(l).encode() + b"\n" for l in lines)
for choice in [0, 7, 255]: put("FuzzMCPLine", bytes([choice]) + stream)
put("FuzzMCPLine", bytes([3]) + b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]\n\n  \r\n{not json\n' + b"x" * 5000 + b"\n")
# Whole stores under 1 MB.
for path in stores + ["../Examples/People.sqlite"]:
    if os.path.getsize(path) < 1 << 20: put("FuzzWholeStore", open(path, "rb").read())
    # The genuine -wal files whole, and each store's first pages for the page reader.
    if os.path.exists(path + "-wal") and 0 < os.path.getsize(path + "-wal") < 4 << 20: put("FuzzWAL", open(path + "-wal", "rb").read())
    with open(path, "rb") as f:
        head = f.read(100)
        size = int.from_bytes(head[16:18], "big") if len(head) == 100 else 0
        size = 65536 if size == 1 else size
        for number in range(1, 9):
            if size < 512: break
            f.seek((number - 1) * size)
            page = f.read(size)
            if len(page) == size:
                put("FuzzBTreePage", bytes([number == 1]) + page)
                for shape in range(4): put("FuzzCellCarver", bytes([shape << 1 | (number == 1)]) + page)
# The public SQLite forensic corpus's pages, when Benchmarks/forensic-corpus.sh has cloned it:
# deleted records in freeblocks, pages all of whose cells were deleted, freelist trunks.
for db in glob.glob("../Benchmarks/out/sqlite-forensic-corpus/sqlite_forensic_corpus_v1.0/0[A-E]/*.db"):
    data = open(db, "rb").read()
    size = int.from_bytes(data[16:18], "big") or 65536
    for n in range(len(data) // size):
        for shape in (0, 2): put("FuzzCellCarver", bytes([shape << 1 | (n == 0)]) + data[n * size:(n + 1) * size])
for name in sorted(os.listdir("Corpus")):
    print(f"{name}: {len(os.listdir(f'Corpus/{name}'))} seeds")
PY
# A -wal written for the example store itself (FuzzWAL puts its seeds beside it): a few saves,
# copied while the connection that made them is still open (closing it would checkpoint).
python3 - <<'PY'
import hashlib, os, shutil, sqlite3, tempfile
folder = tempfile.mkdtemp()
store = os.path.join(folder, "People.sqlite")
shutil.copy("../Examples/People.sqlite", store)
db = sqlite3.connect(store, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("UPDATE ZPERSON SET ZAGE = ZAGE + 1, Z_OPT = Z_OPT + 1 WHERE Z_PK < 5")
db.execute("INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (51, 3, 1, 'fuzz')")
db.execute("DELETE FROM ZCAR WHERE Z_PK = 2")
data = open(store + "-wal", "rb").read()
os.makedirs("Corpus/FuzzWAL", exist_ok=True)
open("Corpus/FuzzWAL/" + hashlib.sha1(data).hexdigest(), "wb").write(data)
db.close(); shutil.rmtree(folder)
PY
