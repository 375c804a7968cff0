#!/usr/bin/env bash
# Renders both HTML reports of a generated database in headless Chromium and checks them:
# the rendered DOM holds one values chart and one differences chart per changed numeric column, the
# screenshots are not blank (light and dark), the pages make no network request (every host
# resolves to nothing and the network log must show only the file itself), and printed to PDF every
# chart is there and no figure is cut across pages (read from the PDF's structure tree).
#
#   .ci/report-check.sh [REDERIVE_BINARY]      (default .build/release/rederive)
#
# With REPORT_SCREENSHOTS=DIR it also writes the README's screenshots into DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
rederive=$(realpath "${1:-.build/release/rederive}")
root=$PWD
check="python3 $root/.ci/report-check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# chrome FLAGS... URL: headless Chromium that cannot resolve any host, so a request could not succeed.
chrome() {
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --host-resolver-rules="MAP * ~NOTFOUND" "$@" 2>>chromium.log
}

"$rederive" generate --db rooms.sqlite --count 600 --corrupt 0.03 >/dev/null
# Three runs, for the runs chart; status 3: the broken records failed.
for run in 1 2 3; do
    "$rederive" run --db rooms.sqlite --progress none --limit 200 >/dev/null || [ $? -eq 3 ]
done
"$rederive" report --db rooms.sqlite state.html >/dev/null

# Values as an older logic wrote them, then every record stale, as after a version bump.
python3 "$root/.ci/report-older-values.py" rooms.sqlite
"$rederive" invalidate --db rooms.sqlite >/dev/null
"$rederive" run --db rooms.sqlite --dry-run --report dry.html >/dev/null 2>&1

# The network check must catch a page that fetches something, or its passing would prove nothing.
echo '<!DOCTYPE html><p>probe</p><img src="http://example.com/probe.png">' >probe.html
chrome --log-net-log="$work/probe.netlog.json" --net-log-capture-mode=Everything --dump-dom "file://$work/probe.html" >/dev/null
if $check netlog probe.netlog.json 2>/dev/null; then
    echo "report-check: the network check missed a page's request" >&2
    exit 1
fi

# Likewise the print check must catch a chart cut across pages: one taller than a page is sliced.
cat >probe-tall.html <<'HTML'
<!DOCTYPE html><figure><svg role="img" aria-label="taller than a page" width="400" height="1500"><rect width="400" height="1500"/></svg><figcaption>probe</figcaption></figure>
HTML
chrome --no-pdf-header-footer --print-to-pdf="$work/probe-tall.pdf" "file://$work/probe-tall.html" >/dev/null
if $check pdf probe-tall.pdf 1 2>/dev/null; then
    echo "report-check: the print check missed a chart cut across pages" >&2
    exit 1
fi

for page in dry state; do
    chrome --dump-dom "file://$work/$page.html" >"$page.dom.html"
    chrome --window-size=1280,2000 --screenshot="$work/$page.png" "file://$work/$page.html" >/dev/null
    chrome --window-size=1280,1000 --blink-settings=preferredColorScheme=0 --screenshot="$work/$page-dark.png" "file://$work/$page.html" >/dev/null
    chrome --log-net-log="$work/$page.netlog.json" --net-log-capture-mode=Everything --dump-dom "file://$work/$page.html" >/dev/null
    $check png "$page.png" 50
    $check dark "$page-dark.png"
    $check netlog "$page.netlog.json"
    chrome --no-pdf-header-footer --print-to-pdf="$work/$page.pdf" "file://$work/$page.html" >/dev/null
    $check pdf "$page.pdf" "$(grep -o '<svg class="chart" data-chart=' "$page.dom.html" | wc -l)"
done
# floor_area_sqm and wall_count change; section_labels is text.
$check dom dry.dom.html values=2 differences=2 text-changes=1
# Four integer and three real columns, each with its distribution.
$check dom state.dom.html status=1 run-rate=1 run-failures=1 distribution=8

if [ -n "${REPORT_SCREENSHOTS:-}" ]; then
    for page in dry state; do
        chrome --window-size=1100,1300 --screenshot="$work/$page-readme.png" "file://$work/$page.html" >/dev/null
        cp "$work/$page-readme.png" "$REPORT_SCREENSHOTS/report-$page.png"
    done
fi
echo "report checks passed"
