#!/usr/bin/env bash
# The web page's browser tests (tests/test_web_browser.py) drive Debian's chromium through
# chromium-driver. When either is missing and this runs as root on Debian, install them; otherwise say
# so in one line: the browser tests then skip, saying why (unless COUPSOLVE_BROWSER_TESTS=required).
set -u
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium and chromium-driver for the browser tests ..."
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null \
        || echo "chromium could not be installed: the browser tests will say so" >&2
else
    echo "no chromium and chromium-driver (install them, as root: apt-get install chromium chromium-driver): the browser tests will skip" >&2
fi
exit 0
