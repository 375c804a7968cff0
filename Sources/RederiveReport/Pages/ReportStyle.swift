/// The reports' style sheet: a quiet dashboard look, light or dark as the reader's system prefers,
/// laid out for a laptop screen, and printable to PDF without a chart or table row cut in two, and
/// with every table and chart within the page's width (paper cannot scroll).
enum ReportStyle {
    static let css = """
        :root { color-scheme: light dark;
          --bg: #ffffff; --panel: #f6f8fa; --fg: #1c2230; --muted: #5d6675; --border: #d8dde4;
          --old: #9aa3b2; --new: #2f6fde; --diff: #7b4fd6; --ok: #2e9e5b; --stale: #d9981a; --fail: #d14343;
          --rate: #2f6fde; }
        @media (prefers-color-scheme: dark) { :root {
          --bg: #0f1318; --panel: #171c23; --fg: #e4e8ee; --muted: #98a1b0; --border: #2b323d;
          --old: #6c7688; --new: #5c9cff; --diff: #a98bff; --ok: #43c27a; --stale: #f0b545; --fail: #ff6e6e;
          --rate: #5c9cff; } }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 1280px; padding: 20px 28px 40px; background: var(--bg); color: var(--fg);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--border); }
        h3 { font-size: 15px; margin: 0 0 8px; }
        h3 code, td code { font-size: 13px; }
        .subtitle, .note, figcaption { color: var(--muted); }
        .note { margin: 6px 0 12px; }
        .facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 8px 20px; margin: 14px 0; }
        .facts div { background: var(--panel); border: 1px solid var(--border); border-radius: 6px; padding: 8px 10px; }
        .facts dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
        .facts dd { margin: 2px 0 0; font-weight: 600; overflow-wrap: anywhere; }
        .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 14px; }
        section.column { background: var(--panel); border: 1px solid var(--border); border-radius: 8px; padding: 12px 14px; margin: 12px 0; }
        figure { margin: 0; background: var(--bg); border: 1px solid var(--border); border-radius: 6px; padding: 8px; }
        figcaption { font-size: 12px; margin-top: 4px; }
        .legend { margin-right: 10px; }
        .legend span { margin-right: 10px; white-space: nowrap; }
        .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
        svg.chart { display: block; width: 100%; height: auto; }
        svg.chart text { fill: var(--muted); font-size: 11px; font-family: inherit; }
        svg.chart .grid { stroke: var(--border); stroke-dasharray: 3 3; }
        svg.chart .baseline, svg.chart .tick { stroke: var(--muted); }
        .old { fill: var(--old); background: var(--old); } .new { fill: var(--new); background: var(--new); }
        .diff { fill: var(--diff); background: var(--diff); } .rate { fill: var(--rate); background: var(--rate); }
        .ok { fill: var(--ok); background: var(--ok); } .stale { fill: var(--stale); background: var(--stale); }
        .fail { fill: var(--fail); background: var(--fail); } .empty { fill: var(--border); }
        .table { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 13px; }
        th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--border); vertical-align: top; overflow-wrap: break-word; }
        td.nowrap { white-space: nowrap; }
        th { color: var(--muted); font-weight: 600; background: var(--panel); }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
        @media print {
          body { max-width: none; padding: 0; font-size: 12px; }
          .grid { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
          figure, section.column, tr, .facts div { break-inside: avoid; page-break-inside: avoid; }
          h2, h3 { break-after: avoid; page-break-after: avoid; }
          /* Paper cannot scroll: tables wrap between words, in smaller type, to fit the page's width. */
          .table { overflow: visible; }
          table { font-size: 11px; }
          th, td { padding: 4px 5px; }
          td.nowrap { white-space: normal; }
          thead { display: table-header-group; }
          svg.chart { max-width: 100%; }
        }
        """
}
