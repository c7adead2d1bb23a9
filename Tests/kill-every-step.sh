#!/usr/bin/env bash
# Every kill point of every writing command, not the sample the test suite runs: each command
# (import, import --upsert, a session's save, batch-update, batch-delete, restore, snapshot,
# create) is killed with SIGKILL on entry to each of its file-changing system calls in turn,
# under strace, and the store it leaves is checked (docs/crash-safety.md); then every fsync
# (EIO) and write (ENOSPC) of restore, import and batch-update fails in turn, and each must end
# in an error or with every sync the rows depend on done (FailedSyncTests). Needs strace.
# About two minutes on two cores with a debug build; CDINSPECT_BINARY picks another build.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { echo "error: strace is needed (apt-get install strace)" >&2; exit 1; }
swift build --build-tests
log=$(mktemp)
status=0
CDINSPECT_KILL_STEPS=all swift test --skip-build --filter 'CrashSafetyTests|FailedSyncTests' >"$log" 2>&1 || status=$?
grep -E "^kill points of|^fault points of|error:|failed \(" "$log" || true
rm -f "$log"
exit "$status"
