#!/usr/bin/env bash
# Renders both HTML reports of a generated database in headless Chromium and checks them:
# the rendered DOM holds one values chart and one differences chart per changed numeric column, the
# screenshots are not blank (light and dark), the pages make no network request (every host
# resolves to nothing and the network log must show only the file itself), printed to PDF every
# chart is there and no figure is cut across pages (read from the PDF's structure tree), and at the
# width of a printed A4 page no table or chart scrolls sideways or is cut (measured in the DOM of a
# copy of the page with its print styles applied, as printing lays it out).
#
#   .ci/report-check.sh [REDERIVE_BINARY]      (default .build/release/rederive)
#
# With REPORT_SCREENSHOTS=DIR it also writes the README's screenshots into DIR; with
# REPORT_PRINT_PAGES=DIR, the pages of both reports printed on A4, as PNG images (pdftoppm), to look at.
set -euo pipefail
cd "$(dirname "$0")/.."
rederive=$(realpath "${1:-.build/release/rederive}")
root=$PWD
check="python3 $root/.ci/report-check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# pdftoppm turns printed pages into images; Debian has it in poppler-utils.
if ! command -v pdftoppm >/dev/null; then
    echo "installing poppler-utils"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils
fi

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

# The width the print check lays pages out at, in CSS pixels (96 an inch): A4's 210 mm less margins of
# 2 cm a side. Chromium's default margins are narrower; the room left absorbs fonts wider than CI's.
print_width=640

# And the print-width check must catch a table that scrolls sideways, as the reports' tables once did.
cat >probe-wide.html <<'HTML'
<!DOCTYPE html><style>@media print { p { color: black } }</style><div style="overflow-x: auto"><table><tr><td style="white-space: nowrap">a cell far wider than any printed page: its table scrolls sideways, and printed, the column after it is lost behind a scroll bar</td><td>last</td></tr></table></div>
HTML
$check print-copy probe-wide.html probe-wide.print.html
chrome --window-size=$print_width,1000 --virtual-time-budget=5000 --dump-dom "file://$work/probe-wide.print.html" >probe-wide.print.dom.html
if $check print-fit probe-wide.print.dom.html $print_width 2>/dev/null; then
    echo "report-check: the print-width check missed a table wider than the page" >&2
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
    # At an A4 page's printable width, with the print styles: nothing scrolls sideways or is cut.
    $check print-copy "$page.html" "$page.print.html"
    chrome --window-size=$print_width,1000 --virtual-time-budget=5000 --dump-dom "file://$work/$page.print.html" >"$page.print.dom.html"
    $check print-fit "$page.print.dom.html" $print_width
    # Printed on A4, page by page as images: not blank.
    sed 's|</head>|<style>@page { size: A4 }</style></head>|' "$page.html" >"$page.a4.html"
    chrome --no-pdf-header-footer --print-to-pdf="$work/$page.a4.pdf" "file://$work/$page.a4.html" >/dev/null
    pdftoppm -r 70 -png "$page.a4.pdf" "$page-print"
    $check png "$(ls "$page"-print-*.png | head -n 1)" 20
    if [ -n "${REPORT_PRINT_PAGES:-}" ]; then
        cp "$page"-print-*.png "$REPORT_PRINT_PAGES/"
    fi
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
