/// The frame of every page: the head (this server's stylesheet and script, the JSON twin as
/// an alternate), the navigation that reaches every page from every other, the pending
/// changes with Save and Discard when the view writes, and the page's own content.
struct Layout {
    /// What every page of one request knows.
    struct Frame {
        var storeName: String
        var csrfToken: String
        var writes: Bool
        /// Changes waiting for Save, when the view writes.
        var pending: Int = 0
    }

    let frame: Frame

    /// A whole page: `crumbs` lead from the store to it, `twin` is its JSON twin's path.
    /// `attributes` go on the body (what the live script follows: `data-live`, `data-object`).
    func page(title: String, crumbs: [(String, String?)], twin: String?, body: HTML, attributes: [(String, String)] = []) -> HTML {
        let trail = HTML.joined(crumbs.map { name, path in path.map { "<a href=\"\($0)\">\(name)</a>" as HTML } ?? "<span>\(name)</span>" },
                                separator: " <span class=\"sep\">›</span> ")
        let alternate: HTML = twin.map { "<link rel=\"alternate\" type=\"application/json\" href=\"\($0)\">" } ?? .empty
        let jsonLink: HTML = twin.map { "<a class=\"twin\" href=\"\($0)\">JSON</a>" } ?? .empty
        let liveAttribute = HTML.joined(attributes.map { " \($0.0)=\"\($0.1)\"" as HTML })
        let mode: HTML = frame.writes ? " <span class=\"mode write\">writes</span>" : " <span class=\"mode\">read-only</span>"
        let pendingLink: HTML = frame.writes ? " <a href=\"\(Paths.changes)\">Changes\(frame.pending > 0 ? " (\(frame.pending))" : "")</a>" : .empty
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · \(frame.storeName) · cdinspect</title>
            <link rel="stylesheet" href="\(Paths.stylesheet)">\(alternate)
            <script src="\(Paths.script)" defer></script></head>
            <body\(liveAttribute)>
            <header><nav class="site"><a class="brand" href="\(Paths.store)">cdinspect</a> <a href="\(Paths.store)">Store</a> <a href="\(Paths.model)">Model</a> <a href="\(Paths.history)">History</a> <a href="\(Paths.doctor)">Doctor</a>\(pendingLink)\(mode)</nav>
            <nav class="crumbs">\(trail) \(jsonLink)</nav></header>
            \(pendingBanner)<main>
            \(body)
            </main>
            <p id="live-status" class="live-status" hidden></p>
            </body></html>

            """
    }

    /// The pending changes and the forms that save or discard them; hidden while there are
    /// none, so that the grid's script can show it after a cell's edit.
    var pendingBanner: HTML {
        guard frame.writes else { return .empty }
        return """
            <section class="pending" aria-live="polite"\(frame.pending > 0 ? .empty : " hidden" as HTML)><p><span id="pending-count">\(frame.pending) unsaved change\(frame.pending == 1 ? "" : "s")</span> in this page's context (<a href="\(Paths.changes)">see them</a>).</p>
            \(form(Paths.save, "Save", primary: true)) \(form(Paths.discard, "Discard"))</section>

            """
    }

    /// A form of one button that POSTs with the CSRF token.
    func form(_ action: String, _ label: String, primary: Bool = false, fields: [(String, String)] = []) -> HTML {
        let hidden = HTML.joined(fields.map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\($0.1)\">" as HTML })
        return "<form class=\"inline\" method=\"post\" action=\"\(action)\"><input type=\"hidden\" name=\"csrf\" value=\"\(frame.csrfToken)\">\(hidden)<button\(primary ? " class=\"primary\"" : "")>\(label)</button></form>"
    }

    /// A page with no frame (a refusal, the sign-in): no navigation, nothing of the store.
    static func bare(title: String, body: HTML) -> HTML {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(title) · cdinspect</title><link rel="stylesheet" href="\(Paths.stylesheet)"></head>
        <body><main><h1>\(title)</h1>\(body)</main></body></html>

        """
    }
}
