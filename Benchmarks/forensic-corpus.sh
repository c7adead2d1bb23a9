#!/usr/bin/env bash
# recover on the public SQLite forensic corpus (Nemetz, Schmitt and Freiling, DFRWS EU 2018,
# CC0): recall and precision per category (forensic-corpus.py says how they are counted).
# The corpus is cloned into Benchmarks/out/sqlite-forensic-corpus the first time, or read from
# CORPUS=DIR. Debug or release: the figures do not depend on the build.
#
#   Benchmarks/forensic-corpus.sh [CATEGORY...]     (default 0A 0B 0C 0D 0E)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-Benchmarks/out/sqlite-forensic-corpus}
if [ ! -d "$corpus/sqlite_forensic_corpus_v1.0" ]; then
    mkdir -p "$(dirname "$corpus")"
    git clone --quiet --depth 1 https://github.com/compositionsystems/sqlite-forensic-corpus "$corpus"
fi
bin=${BIN:-.build/debug/cdinspect}
[ -x "$bin" ] || swift build --product cdinspect >&2
python3 Benchmarks/forensic-corpus.py "$bin" "$corpus" "$@"
