#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and AddressSanitizer (a debug build: some targets
# read internal readers through @testable import), then, with --run SECONDS, runs each (or
# the targets named after SECONDS) from its seed corpus (made from the fixtures the first
# time: seeds.sh) for that long, two at a time, with its dictionary. Findings land in
# findings/, each run's log in logs/.
#
#   FuzzTesting/do_build.sh                             # build
#   FuzzTesting/do_build.sh --run 600                   # build, then run each ten minutes
#   FuzzTesting/do_build.sh --run 1200 FuzzWholeStore   # one target, twenty minutes
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p .cdinspect
ln -sfn "$(cd .. && pwd)" .cdinspect/cdinspect
flags=(-c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
swift build "${flags[@]}"
[ "${1:-}" = "--run" ] || exit 0
seconds=${2:-600}
shift 2 || shift $#
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzKeyedArchive FuzzBinaryPlist FuzzNSPredicate FuzzSwiftPredicate FuzzModelCache FuzzModelXML
    FuzzSQLDebugLog FuzzImportJSON FuzzImportCSV FuzzSwiftDataJSON FuzzMCPLine FuzzHTTPRequest FuzzWholeStore)
[ -d Corpus ] || ./seeds.sh
bin=$(swift build "${flags[@]}" --show-bin-path)
mkdir -p findings logs
run() {
    local target=$1 max_len=65536
    [ "$target" = FuzzWholeStore ] && max_len=1048576
    local dictionary=()
    [ -f "Dictionaries/$target.dict" ] && dictionary=(-dict="Dictionaries/$target.dict")
    mkdir -p "Corpus/$target"
    local status=0
    ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no "$bin/$target" "Corpus/$target" ${dictionary[@]+"${dictionary[@]}"} -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -detect_leaks=0 \
        -max_len=$max_len -artifact_prefix="findings/$target-" -print_final_stats=1 > "logs/$target.log" 2>&1 || status=$?
    echo "== $target, $seconds s: exit $status; $(grep -E '^#[0-9]+' "logs/$target.log" | tail -1)"
    grep -E "stat::number_of_executed_units|ERROR|SUMMARY" "logs/$target.log" || true
}
# Leak detection is off: LeakSanitizer cannot follow Swift's enum payload pointers (their
# spare bits carry the case), so it reports values a global still holds as leaked (README.md
# shows a six-line program that does this). What a leak would do, grow memory input after
# input, the RSS limit catches; each run's log ends with its peak RSS. Swift's own crash
# backtracer is off, so that libFuzzer reports a crash and keeps its input (the backtracer
# and AddressSanitizer trip over each other).
# Two at a time: the machine's two cores.
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    run "${targets[i]}" &
    [ $((i + 1)) -lt ${#targets[@]} ] && run "${targets[i + 1]}" &
    wait
done
