#!/usr/bin/env bash
# `explain --plan --try` on the store of $PEOPLE people (1 million by default): the advised
# index for `name == "dave77"` and for `age == 42` sorted by birthday, and the fetch's time
# before and after it on a temporary copy of the store (what --try prints), with the time the
# advice itself takes (planning in an in-memory copy of the schema, without --try).
#
#   Benchmarks/explain-plan.sh [PEOPLE]        (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-1000000}
source Benchmarks/common.sh
for predicate in 'name == "dave77"' 'age == 42'; do
    sort=()
    [ "$predicate" = 'age == 42' ] && sort=(--sort birthday)
    echo "== $predicate ${sort[*]}"
    "$bin/cdinspect" explain "$store" Person --where "$predicate" ${sort[@]+"${sort[@]}"} --plan --try | sed -n '/^plan:/,$p'
done
echo "== the advice alone (no --try), 5 runs"
hyperfine -N -w 1 -r 5 "$bin/cdinspect explain $store Person --where 'age == 42' --sort birthday --plan" 2>&1 | grep -E "Time|Range"
