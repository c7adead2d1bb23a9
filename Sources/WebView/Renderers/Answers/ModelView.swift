import Foundation
import Inspector

/// `model graph --format json` drawn: the diagram (the SVG Graphviz's `dot` drew, where it is
/// installed; the Mermaid text otherwise) and each entity as a card (its parent, attributes,
/// relationships with their inverse and cardinality, its version hash against the store's).
/// The web view's model page and the MCP model view are this.
enum ModelView {
    /// `svg`: what `dot` drew from the answer's DOT, or nil with why not (`problem`).
    static func html(_ answer: OutputValue, svg: String?, problem: String?) -> HTML {
        let entities = answer["entities"]?.items ?? []
        var body: HTML = ""
        if let svg {
            // dot's SVG of names ModelDiagram escaped in the DOT, checked by Graphviz.svg to hold no script.
            body += "<div class=\"diagram\" id=\"diagram\">\(HTML(trusted: inlineSVG(svg)))</div>"
        } else {
            body += "<p class=\"muted\">\(problem ?? "No diagram was drawn"). The diagram as Mermaid text (GitHub and most Markdown viewers draw it):</p>"
                + "<pre class=\"diagram\" id=\"diagram\">\(answer["mermaid"]?.text ?? "")</pre>"
        }
        body += "<h2>Entities</h2><div class=\"cards\">"
        for entity in entities { body += card(entity) }
        return body + "</div>"
    }

    static func card(_ entity: OutputValue) -> HTML {
        let name = entity["name"]?.text ?? ""
        var html: HTML = "<section class=\"card\" id=\"entity-\(name)\"><h3><a href=\"\(Paths.entity(name))\">\(name)</a>"
        if entity["abstract"] == .bool(true) { html += " <span class=\"muted\">abstract</span>" }
        html += "</h3>"
        if let parent = entity["parent"]?.stringValue { html += "<p class=\"muted\">inherits from <a href=\"#entity-\(parent)\">\(parent)</a></p>" }
        html += "<table>"
        for a in entity["attributes"]?.items ?? [] {
            let required = a["optional"] == .bool(false) ? ", required" : ""
            let transient = a["transient"] == .bool(true) && a["type"]?.text != "fetched property" ? ", transient" : ""
            html += "<tr><td>\(a["name"]?.text ?? "")</td><td class=\"muted\">\(a["type"]?.text ?? "")\(required)\(transient)</td></tr>"
        }
        for r in entity["relationships"]?.items ?? [] {
            let kind = r["toMany"] == .bool(true) ? "to-many" : "to-one"
            let destination = r["destination"]?.text ?? ""
            let inverse: HTML = r["inverse"]?.stringValue.map { ", inverse \($0)" } ?? ", no inverse"
            html += "<tr><td>\(r["name"]?.text ?? "")</td><td class=\"muted\">\(kind) <a href=\"#entity-\(destination)\">\(destination)</a>\(inverse)</td></tr>"
        }
        html += "</table>"
        if let hash = entity["versionHash"] {
            let matches = hash["match"] == .bool(true)
            html += "<p class=\"mono \(matches ? "muted" : "warning")\">version hash \(hash["computed"]?.text.prefix(16) ?? "")…"
                + (matches ? " matches the store's" : " differs from the store's (\(hash["stored"]?.stringValue?.prefix(16) ?? "none")…)") + "</p>"
        }
        return html + "</section>"
    }

    /// dot's SVG without its XML declaration and DOCTYPE, to sit inside a page.
    static func inlineSVG(_ svg: String) -> String {
        guard let start = svg.range(of: "<svg") else { return "" }
        return String(svg[start.lowerBound...])
    }
}
