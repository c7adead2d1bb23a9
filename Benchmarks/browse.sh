#!/usr/bin/env bash
# The web view under load, with `cdinspect browse`'s server running on the store of $PEOPLE
# people (10 million by default):
#
# - the first grid page (100 objects) of Person against the sqlite3 shell running the page's
#   own SQL (from its JSON twin) with LIMIT 100, as a process: medians and the ratio;
# - page 1,000 and page 50,000 (keyset: `after=Person/pN`) against page 1;
# - an object page whose photo is a 100 MB blob, in the row and in an external data file: the
#   time, and the server's peak memory (VmHWM, a server started for it alone);
# - 50 page loads at once (grids, objects, the model, history, doctor): every answer a 200.
#
#   Benchmarks/browse.sh [PEOPLE]        (default 10000000; RUNS=9 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-10000000}
source Benchmarks/common.sh
install -m 755 "$built/cdinspect-browse" "$bin/"
runs=${RUNS:-9}
blobs="$out/blob-100mb"
if [ ! -f "$blobs/inrow.sqlite" ]; then
    echo "== writing stores with a 100 MB photo: in the row, and in an external data file" >&2
    rm -rf "$blobs" && mkdir -p "$blobs"
    "$bin/cdi-example-store" "$blobs/external.sqlite" --people 5 --photos 104857600 --model Examples/People.xcdatamodeld >&2
    "$bin/cdi-example-store" "$blobs/inrow.sqlite" --people 5 --model Examples/People.xcdatamodeld >&2
    # A PNG's signature, then 100 MB: previewed as an image, its head read, never the whole.
    sqlite3 "$blobs/inrow.sqlite" "UPDATE ZPERSON SET ZPHOTO = x'89504E470D0A1A0A' || zeroblob(104857592)
        WHERE Z_PK = (SELECT min(Z_PK) FROM ZPERSON WHERE ZPHOTO IS NOT NULL)"
fi
python3 - "$runs" "$bin" "$store" "$blobs" <<'PY'
import http.client, json, os, re, statistics, subprocess, sys, threading, time
runs, bin, store, blobs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]

class Server:
    """cdinspect browse on `path`: its port and token from the lines it prints."""
    def __init__(self, path):
        self.process = subprocess.Popen([f"{bin}/cdinspect-browse", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.process.stdout.readline()
        url = self.process.stdout.readline().strip()
        m = re.match(r"http://127\.0\.0\.1:(\d+)/-/login\?token=([0-9a-f]+)", url)
        if not m: sys.exit(f"cdinspect browse printed {url!r}")
        self.port, self.token = int(m.group(1)), m.group(2)

    def get(self, path):
        """Status, body and wall time of one page, on a connection of its own."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        start = time.perf_counter()
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{self.port}", "Authorization": f"Bearer {self.token}"})
        response = connection.getresponse()
        body = response.read()
        elapsed = time.perf_counter() - start
        connection.close()
        return response.status, body, elapsed

    def peak_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            return int(next(line for line in status if line.startswith("VmHWM")).split()[1])

    def stop(self):
        self.process.terminate()
        self.process.wait()

def median_get(server, path):
    server.get(path)  # warm-up
    times = []
    for _ in range(runs):
        status, body, elapsed = server.get(path)
        if status != 200: sys.exit(f"{path}: {status} {body[:300]!r}")
        times.append(elapsed)
    return statistics.median(times)

def median_shell(sql):
    argv = ["sqlite3", f"file:{store}?mode=ro", sql]
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)

server = Server(store)
twin = json.loads(server.get("/Person.json")[1])
sql = twin["sql"]["sql"]
for argument in twin["sql"].get("arguments") or []:
    sql = sql.replace("?", str(argument), 1)
sql = re.sub(r"LIMIT \d+", "LIMIT 100", sql)
first = median_get(server, "/Person")
shell = median_shell(sql)
print(f"{'grid page 1':<28} {first * 1000:9.1f} ms  sqlite3 {shell * 1000:7.1f} ms  {first / shell:5.2f}x   ({sql[:90]}…)")
for page in (1000, 50000):
    t = median_get(server, f"/Person?after=Person/p{(page - 1) * 100}")
    print(f"{f'grid page {page:,}':<28} {t * 1000:9.1f} ms  page 1 {first * 1000:8.1f} ms  {t / first:5.2f}x")
json_first = median_get(server, "/Person.json")
print(f"{'grid page 1, JSON twin':<28} {json_first * 1000:9.1f} ms")

# 50 loads at once, of different pages.
paths = ["/", "/Person", "/Car", "/Tag", "/model", "/history", "/doctor", "/Person/p1", "/Person/p2", "/Car/p3",
         "/Person?sort=age", "/Person?where=age%20%3E%2030", "/Person.json", "/Person/p5/cars", "/Tag/p1/people"]
results = []
def load(path):
    try: results.append((path, server.get(path)[0]))
    except Exception as error: results.append((path, repr(error)))
threads = [threading.Thread(target=load, args=(paths[i % len(paths)],)) for i in range(50)]
start = time.perf_counter()
for thread in threads: thread.start()
for thread in threads: thread.join()
wall = time.perf_counter() - start
failed = [r for r in results if r[1] != 200]
print(f"{'50 loads at once':<28} {wall * 1000:9.1f} ms  {len(results) - len(failed)} of 50 answered 200" + (f"; failed: {failed[:5]}" if failed else ""))
server.stop()

for name in ("inrow", "external"):
    path = f"{blobs}/{name}.sqlite"
    key = subprocess.run(["sqlite3", f"file:{path}?mode=ro", "SELECT Z_PK FROM ZPERSON WHERE ZPHOTO IS NOT NULL ORDER BY Z_PK LIMIT 1"],
                         capture_output=True, text=True, check=True).stdout.strip()
    server = Server(path)
    before = server.peak_kib()
    status, body, elapsed = server.get(f"/Person/p{key}")
    if status != 200: sys.exit(f"{name}: {status} {body[:300]!r}")
    after = server.peak_kib()
    times = [server.get(f"/Person/p{key}")[2] for _ in range(runs)]
    print(f"{'100 MB photo, ' + name:<28} {statistics.median(times) * 1000:9.1f} ms  first {elapsed * 1000:7.1f} ms  "
          f"server peak {after / 1024:6.1f} MB (at start {before / 1024:.1f} MB)  page {len(body):,} bytes")
    server.stop()
PY
