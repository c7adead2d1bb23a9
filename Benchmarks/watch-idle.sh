#!/usr/bin/env bash
# What an idle `watch` costs: the processor time of a watch that waits SECONDS for a change
# that never comes, less that of a watch that ends at once, per second of waiting. A watch
# sleeps on the WAL index between looks, so this should stay well under 1% of a core.
# (A test once asserted it; a loaded CI machine makes such a test fail at random, so it is
# measured here and reported instead.)
#
#   Benchmarks/watch-idle.sh [SECONDS]        (default 8)
set -euo pipefail
cd "$(dirname "$0")/.."
people=50
source Benchmarks/common.sh
seconds=${1:-8}
cpu() {
    /usr/bin/time -f "%U %S" "$bin/cdinspect" watch "$store" --timeout "$1" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'
}
start=$(cpu 0)
idle=$(cpu "$seconds")
python3 -c "
start, idle, seconds = $start, $idle, $seconds
print(f'watch idle: start-up {start:.3f} s, {seconds} s idle {idle:.3f} s of processor time: {100 * (idle - start) / seconds:.3f}% of a core')
"
