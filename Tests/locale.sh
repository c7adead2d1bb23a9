#!/usr/bin/env bash
# The whole suite under a German locale (LANG and LC_ALL de_DE.UTF-8), where numbers group with
# dots and dates read otherwise: cdinspect's output, documents and tests must not depend on the
# machine's region. Generates the locale first where it is missing (Debian's locales package;
# needs root). About eight minutes on two cores with a debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
    command -v locale-gen >/dev/null || { echo "error: no de_DE.UTF-8 locale and no locale-gen (apt-get install locales)" >&2; exit 1; }
    sed -i 's/^# *de_DE.UTF-8 UTF-8/de_DE.UTF-8 UTF-8/' /etc/locale.gen
    locale-gen >/dev/null
fi
swift build --build-tests
LANG=de_DE.UTF-8 LC_ALL=de_DE.UTF-8 swift test --skip-build --parallel
