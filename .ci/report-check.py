#!/usr/bin/env python3
"""Checks what Chromium made of rederive's HTML reports.

    report-check.py dom FILE KIND=COUNT...   the rendered DOM holds exactly COUNT charts data-chart="KIND"
                                             and no script
    report-check.py png FILE MIN_COLOURS     the screenshot is not blank: at least MIN_COLOURS distinct
                                             colours and 5 % of pixels unlike the background
    report-check.py dark FILE                the screenshot's background is dark (prefers-color-scheme)
    report-check.py netlog FILE              Chromium's network log holds no request of the page's
    report-check.py pdf FILE CHARTS          the page printed to PDF holds CHARTS charts, and no figure
                                             (chart and caption) is cut across pages
    report-check.py print-copy FILE COPY     writes COPY: the page with its print styles applied on screen
                                             and a script that measures, once loaded, every element that
                                             scrolls sideways or reaches past the page's width
    report-check.py print-fit FILE WIDTH     the DOM Chromium dumped of such a copy, laid out WIDTH CSS
                                             pixels wide, shows no table or chart that scrolls or is cut

Only the standard library: a CI machine has python3 and nothing else for it.
"""
import html
import json
import re
import struct
import sys
import zlib


def fail(message):
    print(f"report-check: {message}", file=sys.stderr)
    sys.exit(1)


def check_dom(path, expectations):
    dom = open(path, encoding="utf-8").read()
    if "</svg>" not in dom:
        fail(f"{path}: the rendered page has no chart at all")
    if re.search(r"<script", dom, re.IGNORECASE):
        fail(f"{path}: the rendered page holds a script")
    for expectation in expectations:
        kind, expected = expectation.split("=")
        found = len(re.findall(rf'data-chart="{re.escape(kind)}"', dom))
        if found != int(expected):
            fail(f'{path}: {found} charts data-chart="{kind}", expected {expected}')
    print(f"{path}: " + ", ".join(expectations) + " as expected")


def read_png(path):
    """Pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes) as rows of tuples."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        chunk = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        fail(f"{path}: unexpected PNG format (depth {depth}, colour type {colour}, interlace {interlace})")
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - upper_left
                a, b, c = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
                predictor = left if a <= b and a <= c else up if b <= c else upper_left
                line[i] = (line[i] + predictor) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return rows


def check_png(path, minimum_colours):
    rows = read_png(path)
    pixels = [pixel for row in rows for pixel in row]
    colours = set(pixels)
    background = rows[0][0]
    different = sum(1 for pixel in pixels if pixel != background)
    share = different / len(pixels)
    if len(colours) < minimum_colours:
        fail(f"{path}: only {len(colours)} distinct colours, expected at least {minimum_colours}: blank?")
    if share < 0.05:
        fail(f"{path}: only {share:.1%} of pixels differ from the background: blank?")
    print(f"{path}: {len(colours)} distinct colours, {share:.0%} of pixels drawn")


def check_dark(path):
    background = read_png(path)[0][0]
    if sum(background) / 3 > 80:
        fail(f"{path}: background {background} is not dark")
    print(f"{path}: dark background {background}")


def check_netlog(path):
    """Requests the page made: those whose network isolation key is the file:// origin. Chromium's
    own background requests (component updates, sign-in) carry other keys and are not the page's."""
    text = open(path, encoding="utf-8", errors="replace").read()
    try:
        log = json.loads(text)
    except json.JSONDecodeError:
        # Chromium may end the file before closing the events array when it exits.
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    requests = []
    for event in log.get("events", []):
        parameters = event.get("params") or {}
        if event.get("type") == start_job and "file://" in parameters.get("network_isolation_key", ""):
            requests.append(parameters.get("url", ""))
    remote = sorted(url for url in requests if not url.startswith(("file:", "data:", "about:")))
    if remote:
        fail(f"{path}: the page made network requests: {remote[:5]}")
    print(f"{path}: no network request from the page")


def pdf_objects(path):
    """The objects of a PDF as Chromium's Skia writes it: `N 0 obj << ... >> endobj`, dictionaries
    uncompressed (only streams are), so the structure tree can be read without a PDF library."""
    text = open(path, "rb").read().decode("latin-1")
    if not text.startswith("%PDF-"):
        fail(f"{path}: not a PDF")
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"(\d+) 0 obj\s*(.*?)endobj", text, re.S)}


def check_pdf(path, charts):
    """Reads the tagged PDF's structure tree: each `Figure` element (an HTML figure, or a chart's svg
    with its aria-label as `/Alt`) and everything under it must be drawn on one page. A chart taller
    than the space left on a page would be sliced, its marked content then on two pages; a caption
    parted from its chart would be too."""
    objects = pdf_objects(path)
    pages = [n for n, body in objects.items() if re.search(r"/Type /Page\b(?!s)", body)]
    elements = {n: body for n, body in objects.items() if "/Type /StructElem" in body}
    if not elements:
        fail(f"{path}: no structure tree: the PDF is not tagged, so its charts cannot be found")

    def kids(body):
        match = re.search(r"/K (\[.*\]|\d+ 0 R|\d+)\s*>>\s*$", body, re.S)
        return match.group(1) if match else ""

    def pages_of(number, seen=()):
        body = elements[number]
        found = set(re.findall(r"/Pg (\d+) 0 R", body))
        for child in re.findall(r"(\d+) 0 R", re.sub(r"/Type /MCR /Pg \d+ 0 R", "", kids(body))):
            if int(child) in elements and int(child) not in seen:
                found |= pages_of(int(child), seen + (number,))
        return found

    def parent(number):
        match = re.search(r"/P (\d+) 0 R", elements[number])
        return int(match.group(1)) if match else None

    figures = [n for n, body in elements.items() if "/S /Figure" in body]
    alt = [n for n in figures if "/Alt" in elements[n]]
    if len(alt) != charts:
        fail(f"{path}: {len(alt)} charts in the PDF, expected {charts}")
    outermost = [n for n in figures if not ("/S /Figure" in elements.get(parent(n), ""))]
    for number in outermost:
        spread = pages_of(number)
        if len(spread) != 1:
            names = [re.search(r"/Alt \((.*?)\)", elements[n]).group(1) for n in alt if n == number or parent(n) == number]
            fail(f"{path}: a figure {names} is cut across {len(spread)} pages")
    print(f"{path}: {len(pages)} pages, {charts} charts, {len(outermost)} figures each on one page")


# Measures the page as printed: every element that scrolls sideways (printed, its scroll bar is a
# bar and the content beyond it is lost) or ends beyond the page's right edge (cut off), written
# into the DOM as JSON for --dump-dom.
MEASURE_SCRIPT = """<script>
addEventListener("load", () => {
  const page = document.documentElement.clientWidth;
  const describe = (element, heading) => element.tagName.toLowerCase()
    + (typeof element.className === "string" && element.className.trim() ? "." + element.className.trim().split(/\\s+/).join(".") : "")
    + (element.dataset.table ? `[data-table=${element.dataset.table}]` : "")
    + (element.dataset.chart ? `[data-chart=${element.dataset.chart}]` : "")
    + (heading ? ` under "${heading}"` : "");
  const problems = [];
  const reported = [];
  let heading = "";
  // In document order, so that the heading a table is under is the last one seen; only the outermost
  // element that does not fit is told, not each of its cells.
  for (const element of document.body.querySelectorAll("*")) {
    if (/^H[1-3]$/.test(element.tagName)) heading = element.textContent.trim();
    const style = getComputedStyle(element);
    if (style.display === "none" || reported.some((outer) => outer.contains(element))) continue;
    const right = element.getBoundingClientRect().right;
    if (style.overflowX !== "visible" && element.scrollWidth > element.clientWidth + 1) {
      problems.push(`${describe(element, heading)} scrolls sideways: ${element.scrollWidth} px of content in ${element.clientWidth} px`);
      reported.push(element);
    } else if (right > page + 1) {
      problems.push(`${describe(element, heading)} ends at ${Math.round(right)} px, past the page's ${page} px`);
      reported.push(element);
    }
  }
  const result = document.createElement("pre");
  result.id = "print-fit";
  result.textContent = JSON.stringify({
    width: page,
    tables: document.querySelectorAll("table").length,
    charts: document.querySelectorAll("svg.chart").length,
    problems,
  });
  document.body.append(result);
});
</script>"""


def print_copy(path, copy):
    """The page with `@media print` rules applied on screen, plus the measuring script; without its
    Content-Security-Policy, which rightly forbids scripts in the report itself."""
    page = open(path, encoding="utf-8").read()
    if "@media print" not in page:
        fail(f"{path}: the page has no print styles")
    page = re.sub(r"@media\s+print\b", "@media all", page)
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    page = page.replace("</body>", MEASURE_SCRIPT + "</body>") if "</body>" in page else page + MEASURE_SCRIPT
    open(copy, "w", encoding="utf-8").write(page)


def check_print_fit(path, expected_width):
    dom = open(path, encoding="utf-8").read()
    match = re.search(r'<pre id="print-fit">(.*?)</pre>', dom, re.S)
    if not match:
        fail(f"{path}: the measuring script left no result: did the page load?")
    result = json.loads(html.unescape(match.group(1)))
    width = result["width"]
    if not expected_width - 20 <= width <= expected_width:
        fail(f"{path}: measured {width} px wide, not at the printed width of {expected_width} px")
    problems = result["problems"]
    if problems:
        fail(f"{path}: at the printed width of {width} px, {len(problems)} elements do not fit: " + "; ".join(problems))
    print(f"{path}: {result['tables']} tables and {result['charts']} charts fit the printed width of {width} px")


command, path, *rest = sys.argv[1:]
if command == "dom":
    check_dom(path, rest)
elif command == "png":
    check_png(path, int(rest[0]))
elif command == "dark":
    check_dark(path)
elif command == "netlog":
    check_netlog(path)
elif command == "pdf":
    check_pdf(path, int(rest[0]))
elif command == "print-copy":
    print_copy(path, rest[0])
elif command == "print-fit":
    check_print_fit(path, int(rest[0]))
else:
    fail(f"unknown check {command}")
