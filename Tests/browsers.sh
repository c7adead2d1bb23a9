#!/usr/bin/env bash
# The web view's browser tests in all three engines: Chromium (which every test run uses),
# WebKitGTK (Safari's engine: WebKitWebDriver with MiniBrowser, on an Xvfb display the tests
# start) and Firefox ESR (headless, driven through its Marionette protocol: no geckodriver).
# Installs what is missing (Debian), runs BrowserTests with CDINSPECT_BROWSERS naming the
# three, and copies the screenshots of each engine into docs/screenshots, so that the same
# pages can be compared across engines:
#
#   Tests/browsers.sh                 # every browser test, in every engine
#   Tests/browsers.sh 'Grid'          # those whose name matches (a --filter on BrowserTests)
#
# CI runs only Chromium, within its time budget; this takes about three minutes more.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname)" = Linux ]; then
    missing=()
    for package in webkit2gtk-driver xvfb firefox-esr chromium chromium-driver; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}"
    fi
fi
source .ci/setup
export CDINSPECT_BROWSERS=chromium,webkit,firefox CDINSPECT_REQUIRE_TOOLS=1
swift build --build-tests
swift test --skip-build --filter "BrowserTests.*${1:-}"
# The screenshots: docs/screenshots/ENGINE-PAGE.png for the pages the README's web-view
# section names.
mkdir -p docs/screenshots
for engine in chromium webkit firefox; do
    for page in store grid grid-edit delete-rules object model history; do
        shot=.build/browser-screenshots/$engine/$page.png
        [ -f "$shot" ] && cp "$shot" "docs/screenshots/$engine-$page.png"
    done
done
echo "screenshots: docs/screenshots"
