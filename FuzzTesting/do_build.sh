#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and AddressSanitizer (a debug build: some targets
# read internal readers through @testable import), then, with --run SECONDS, runs each (or
# the targets named after SECONDS) from its seed corpus (made from the fixtures the first
# time: seeds.sh) for that long, two at a time, with its dictionary. Findings land in
# findings/, each run's log in logs/. With --replay, each runs its corpus once and stops
# (every input checked for crashes and leaks, and the process at its end).
#
#   FuzzTesting/do_build.sh                             # build
#   FuzzTesting/do_build.sh --run 600                   # build, then run each ten minutes
#   FuzzTesting/do_build.sh --run 1200 FuzzWholeStore   # one target, twenty minutes
#   FuzzTesting/do_build.sh --replay                    # every corpus once
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p .cdinspect
ln -sfn "$(cd .. && pwd)" .cdinspect/cdinspect
flags=(-c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
swift build "${flags[@]}"
case "${1:-}" in
    --run) seconds=${2:-600}; label="$seconds s"; limit=(-max_total_time="$seconds"); shift 2 || shift $# ;;
    --replay) label="its corpus once"; limit=(-runs=0); shift ;;
    *) exit 0 ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzKeyedArchive FuzzBinaryPlist FuzzNSPredicate FuzzSwiftPredicate FuzzModelCache FuzzModelXML FuzzMappingModel
    FuzzSQLDebugLog FuzzImportJSON FuzzImportCSV FuzzSwiftDataJSON FuzzMCPLine FuzzHTTPRequest FuzzWholeStore FuzzWAL FuzzBTreePage FuzzCellCarver)
[ -d Corpus ] || ./seeds.sh
bin=$(swift build "${flags[@]}" --show-bin-path)
mkdir -p findings logs
run() {
    local target=$1 max_len=65536
    [ "$target" = FuzzWholeStore ] && max_len=1048576
    [ "$target" = FuzzWAL ] && max_len=262144
    local dictionary=()
    [ -f "Dictionaries/$target.dict" ] && dictionary=(-dict="Dictionaries/$target.dict")
    mkdir -p "Corpus/$target"
    local status=0
    ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$PWD/lsan.supp" SWIFT_BACKTRACE=enable=no "$bin/$target" "Corpus/$target" ${dictionary[@]+"${dictionary[@]}"} "${limit[@]}" -rss_limit_mb=2048 -timeout=10 -detect_leaks=1 \
        -max_len=$max_len -artifact_prefix="findings/$target-" -print_final_stats=1 > "logs/$target.log" 2>&1 || status=$?
    echo "== $target, $label: exit $status; $(grep -E '^#[0-9]+' "logs/$target.log" | tail -1)"
    grep -E "stat::number_of_executed_units|ERROR|SUMMARY" "logs/$target.log" || true
}
# LeakSanitizer checks each input that allocates more than it frees, and the process at its
# end. It cannot follow Swift's enum payload pointers (their spare bits carry the case), so
# what a global holds would look leaked: lsan.supp exempts what is allocated while a global is
# first initialized (once per process, whatever the input), and a fixture that outlives its
# input says so itself (FuzzSupport's LeakCheck.exempt). Swift's own crash backtracer is off,
# so that libFuzzer reports a crash and keeps its input (the backtracer and AddressSanitizer
# trip over each other).
# Two at a time: the machine's two cores.
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    run "${targets[i]}" &
    [ $((i + 1)) -lt ${#targets[@]} ] && run "${targets[i + 1]}" &
    wait
done
