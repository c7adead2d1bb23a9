#!/usr/bin/env bash
# The test suite under a sanitizer, in a build folder of its own (.build-address or
# .build-thread), so that the ordinary build is untouched:
#
#   Tests/sanitize.sh address                        # every test (the end-to-end ones run the
#                                                    # address-sanitized cdinspect)
#   Tests/sanitize.sh address 'ManagedStoreTests|InspectorTests|WebViewTests'
#   Tests/sanitize.sh thread
#
# LeakSanitizer is off (ASAN_OPTIONS=detect_leaks=0): it cannot follow Swift's enum payload
# pointers and reports values still held as leaked (docs/fuzzing.md). AddressSanitizer's
# quarantine of freed memory is 16 MB, not 256: freed memory it holds back from reuse stays
# resident, and the tests that bound a process's peak memory (MCPHostileTests: the statements'
# 512 MB) would count it as cdinspect's (a use soon after a free is still caught). Needs what
# the README's test command needs; --filter takes the second argument.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:?usage: Tests/sanitize.sh address|thread [FILTER]}
case "$sanitizer" in address|thread) ;; *) echo "error: the sanitizer is address or thread, not $sanitizer" >&2; exit 64 ;; esac
build=.build-$sanitizer
swift build --build-tests --sanitize="$sanitizer" --build-path "$build"
filter=()
[ -n "${2:-}" ] && filter=(--filter "$2")
# Every process's report goes to a file of its own (report.PID), so that one from a child a test
# ran is seen even where the test expected it to fail.
reports="$PWD/$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
status=0
# How many times slower the sanitized cdinspect runs (SanitizedBuild in the end-to-end tests):
# the time limits tests give it so that hostile work ends are stretched by as much.
case "$sanitizer" in address) slowdown=3 ;; thread) slowdown=10 ;; esac
export CDINSPECT_SLOWDOWN=${CDINSPECT_SLOWDOWN:-$slowdown}
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=16}:log_path=$reports/report TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}:log_path=$reports/report \
    swift test --skip-build --sanitize="$sanitizer" --build-path "$build" --parallel ${filter[@]+"${filter[@]}"} || status=$?
if [ -n "$(ls -A "$reports")" ]; then
    echo "error: $sanitizer sanitizer reports in $reports:" >&2
    ls "$reports" >&2
    status=1
fi
exit "$status"
