/// The web view's one stylesheet, served from `/-/static/app.css`: no inline style anywhere
/// (the Content-Security-Policy allows none), no web font, nothing from another origin.
enum Stylesheet {
    static let text = """
        :root { --fg: #1d1f23; --muted: #5f6670; --line: #d9dde3; --bg: #ffffff; --soft: #f4f6f9; --accent: #2a5db0; --bad: #b3261e; --warn: #8a5a00; --ok: #1e6b34; }
        @media (prefers-color-scheme: dark) { :root { --fg: #e4e6ea; --muted: #9aa3ad; --line: #3a3f47; --bg: #16181c; --soft: #1f2228; --accent: #7aa7f0; --bad: #f2827a; --warn: #e0b050; --ok: #7ccf93; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", system-ui, sans-serif; color: var(--fg); background: var(--bg); }
        header { border-bottom: 1px solid var(--line); background: var(--soft); padding: 6px 16px; }
        nav.site a { margin-right: 14px; color: var(--fg); text-decoration: none; font-weight: 500; }
        nav.site a.brand { font-weight: 700; }
        nav.crumbs { color: var(--muted); margin-top: 4px; font-size: 13px; }
        nav.crumbs a { color: var(--accent); }
        .sep { color: var(--muted); margin: 0 2px; }
        .twin { float: right; font-size: 12px; }
        .mode { float: right; font-size: 12px; color: var(--muted); border: 1px solid var(--line); border-radius: 10px; padding: 0 8px; }
        .mode.write { color: var(--warn); border-color: var(--warn); }
        main { padding: 12px 16px 40px; }
        h1 { font-size: 20px; margin: 6px 0 12px; } h2 { font-size: 16px; margin: 22px 0 8px; } h3 { font-size: 14px; margin: 14px 0 6px; }
        a { color: var(--accent); }
        table { border-collapse: collapse; margin: 4px 0 12px; }
        th, td { border: 1px solid var(--line); padding: 3px 7px; text-align: left; vertical-align: top; max-width: 420px; overflow-wrap: anywhere; }
        th { background: var(--soft); font-weight: 600; white-space: nowrap; }
        th a { color: var(--fg); text-decoration: none; } th a.sorted { color: var(--accent); }
        td.num { text-align: right; font-variant-numeric: tabular-nums; }
        table.grid td { max-width: 300px; overflow-wrap: break-word; } table.grid td:first-child, table.grid td a, table.grid th[scope=row] { white-space: nowrap; }
        .grid-scroll { overflow-x: auto; max-width: 100%; }
        table.grid td.token { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; } table.grid td.editing { overflow: visible; }
        .grid-scroll table.grid tr > :first-child { position: sticky; left: 0; z-index: 1; background: var(--soft); }
        .null { color: var(--muted); font-style: italic; }
        .muted, .note { color: var(--muted); }
        .warning { color: var(--warn); } .error, .refusal { color: var(--bad); }
        pre, code, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
        pre { background: var(--soft); border: 1px solid var(--line); padding: 8px; overflow: auto; max-height: 420px; white-space: pre-wrap; overflow-wrap: anywhere; }
        pre.caret { color: var(--bad); }
        dl.record { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 4px 0 12px; }
        dl.record dt { color: var(--muted); } dl.record dd { margin: 0; overflow-wrap: anywhere; }
        dl.record dd.changed, td.changed { background: #fff3b0; color: #1d1f23; transition: background 2s; }
        form.query { margin: 4px 0 10px; display: flex; gap: 6px; flex-wrap: wrap; align-items: center; }
        form.query input[type=text] { flex: 1 1 420px; font: 13px ui-monospace, Menlo, monospace; padding: 4px 6px; }
        form.inline { display: inline; }
        button { font: inherit; padding: 2px 10px; } button.primary { font-weight: 600; }
        .pending { background: #fff7d6; color: #1d1f23; border-bottom: 1px solid #e8d68a; padding: 6px 16px; }
        .pending p { display: inline; margin-right: 12px; }
        .pager a { margin-right: 12px; }
        ul.tree { list-style: none; padding-left: 18px; margin: 2px 0; } ul.tree.root { padding-left: 0; }
        details summary { cursor: pointer; color: var(--accent); }
        .preview img { max-width: 480px; max-height: 360px; border: 1px solid var(--line); }
        .diagram { overflow: auto; border: 1px solid var(--line); background: #ffffff; padding: 8px; }
        .diagram svg { max-width: none; height: auto; }
        .cards { display: flex; flex-wrap: wrap; gap: 10px; } .card { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; min-width: 260px; }
        .card h3 { margin-top: 2px; }
        svg.chart text { font: 11px system-ui, sans-serif; fill: var(--fg); }
        svg.chart .bar { fill: var(--accent); } svg.chart .axis { stroke: var(--muted); }
        .legend span { display: inline-block; margin-right: 12px; } .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
        .live-status { position: fixed; bottom: 8px; right: 12px; background: var(--soft); border: 1px solid var(--line); padding: 4px 10px; border-radius: 6px; font-size: 12px; }
        .field-error { color: var(--bad); font-size: 12px; }
        input.value { font: 13px ui-monospace, Menlo, monospace; width: 260px; }
        table.grid.editable td[data-key] { cursor: cell; } table.grid.editable td[data-key]:focus { outline: 2px solid var(--accent); outline-offset: -2px; }
        td.pending-cell { background: #fff7d6; color: #1d1f23; } tr.deleted td, tr.deleted th { text-decoration: line-through; opacity: .6; }
        .cell-error { display: block; color: var(--bad); font-size: 12px; white-space: normal; min-width: 14em; }
        input.cell-editor { font: 13px ui-monospace, Menlo, monospace; width: 100%; min-width: 8em; box-sizing: border-box; }
        .edit-bar { margin: 6px 0; } .edit-bar .muted { font-size: 12px; } caption { text-align: left; font-weight: 600; padding: 4px 0; }
        button.danger { background: var(--bad); color: #fff; border-color: var(--bad); } .new-object { font-family: ui-monospace, Menlo, monospace; }
        .s0 { fill: #2a5db0; background: #2a5db0; } .s1 { fill: #d4762c; background: #d4762c; } .s2 { fill: #3b9a57; background: #3b9a57; }
        .s3 { fill: #a2449a; background: #a2449a; } .s4 { fill: #b8a02e; background: #b8a02e; } .s5 { fill: #4aa6b5; background: #4aa6b5; }
        .s6 { fill: #8c6d4f; background: #8c6d4f; } .s7 { fill: #777777; background: #777777; }

        """
}
