#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and AddressSanitizer (a debug build: the XML target
# reads an internal reader through @testable import), then, with --run SECONDS, runs each from
# its seed corpus (made from the fixtures the first time: seeds.sh) for that long.
#
#   FuzzTesting/do_build.sh                 # build
#   FuzzTesting/do_build.sh --run 600       # build, then run each target ten minutes
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p .cdinspect
ln -sfn "$(cd .. && pwd)" .cdinspect/cdinspect
swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
[ "${1:-}" = "--run" ] || exit 0
[ -d Corpus ] || ./seeds.sh
seconds=${2:-600}
bin=$(swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)
mkdir -p findings
for target in FuzzKeyedArchive FuzzBinaryPlist FuzzNSPredicate FuzzModelCache FuzzModelXML; do
    corpus="Corpus/$target"
    mkdir -p "$corpus"
    dictionary=()
    [ -f "Dictionaries/$target.dict" ] && dictionary=(-dict="Dictionaries/$target.dict")
    echo "== $target, $seconds s" >&2
    "$bin/$target" "$corpus" ${dictionary[@]+"${dictionary[@]}"} -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -max_len=65536 -artifact_prefix="findings/$target-" -print_final_stats=1 2>&1 | tail -25
done
