import Foundation
import Inspector
import ManagedStore

/// `/model`: the model as a diagram (`model graph`: the SVG Graphviz draws, its entities
/// linked to their grids; the Mermaid text where `dot` is not installed), each entity as a
/// card (attributes, relationships with their inverse and cardinality, its parent, its version
/// hash against the store's), and, given `--compare`, `model diff` against that model.
struct ModelPage {
    let page: PageRequest

    func response() throws -> WebResponse {
        let model = page.store.model
        let diagram = try ModelDiagram(model)
        let hashes = try page.run(["model", "hashes"]).rows
        var diff: OutputValue?
        if let other = page.site.options.compareWith { diff = try page.run(["model", "diff", other]).json }
        var svg: String?
        var drawingProblem: String?
        do { svg = try Graphviz.svg(diagram.dot(link: { Paths.entity($0) })) } catch { drawingProblem = "\(error)" }
        var value: [(String, OutputValue)] = [("mermaid", .string(diagram.mermaid)), ("hashes", .array(hashes))]
        if let diff { value.append(("diff", diff)) }
        return try page.answer(title: "Model", crumbs: [page.storeCrumb, ("model", nil)], value: .object(value)) {
            var body: HTML = "<h1>Model</h1><p>\(model.entities.count) entities · <a href=\"\(Paths.model).json\">Mermaid and hashes as JSON</a></p>"
            if let svg {
                // dot's SVG of names this module escaped in the DOT, checked by Graphviz.svg to hold no script.
                body += "<div class=\"diagram\" id=\"diagram\">\(HTML(trusted: Self.inlineSVG(svg)))</div>"
            } else {
                body += "<p class=\"muted\">\(drawingProblem ?? ""). The diagram as Mermaid text (GitHub and most Markdown viewers draw it):</p>"
                    + "<pre class=\"diagram\" id=\"diagram\">\(diagram.mermaid)</pre>"
            }
            if let diff {
                body += "<h2>Against \(page.site.options.compareWith ?? "")</h2><p>\(diff["verdict"]?.text ?? "")</p>"
                body += ValueView.html(diff["changes"] ?? diff, characters: ValueView.pageCharacters)
            }
            body += "<h2>Entities</h2><div class=\"cards\">"
            for entity in model.entities { body += card(entity, hash: hashes.first { $0["entity"]?.stringValue == entity.name }) }
            return body + "</div>"
        }
    }

    func card(_ entity: EntityDescription, hash: OutputValue?) -> HTML {
        var html: HTML = "<section class=\"card\" id=\"entity-\(entity.name)\"><h3><a href=\"\(Paths.entity(entity.name))\">\(entity.name)</a>"
        if entity.isAbstract { html += " <span class=\"muted\">abstract</span>" }
        html += "</h3>"
        if let parent = entity.superentityName { html += "<p class=\"muted\">inherits from <a href=\"#entity-\(parent)\">\(parent)</a></p>" }
        html += "<table>"
        for property in entity.properties {
            switch property {
            case .attribute(let a):
                html += "<tr><td>\(a.name)</td><td class=\"muted\">\(a.type.modelName)\(a.isOptional ? "" : ", required")\(a.isTransient ? ", transient" : "")</td></tr>"
            case .relationship(let r):
                let kind = r.isToMany ? "to-many" : "to-one"
                let inverse: HTML = r.inverseName.map { ", inverse \($0)" } ?? ", no inverse"
                html += "<tr><td>\(r.name)</td><td class=\"muted\">\(kind) <a href=\"#entity-\(r.destinationEntityName)\">\(r.destinationEntityName)</a>\(inverse)</td></tr>"
            case .fetched(let f):
                html += "<tr><td>\(f.name)</td><td class=\"muted\">fetched property</td></tr>"
            }
        }
        html += "</table>"
        if let hash {
            let matches = hash["match"] == .bool(true)
            html += "<p class=\"mono \(matches ? "muted" : "warning")\">version hash \(hash["computed"]?.text.prefix(16) ?? "")…"
                + (matches ? " matches the store's" : " differs from the store's (\(hash["stored"]?.text.prefix(16) ?? "none")…)") + "</p>"
        }
        return html + "</section>"
    }

    /// dot's SVG without its XML declaration and DOCTYPE, to sit inside the page.
    static func inlineSVG(_ svg: String) -> String {
        guard let start = svg.range(of: "<svg") else { return "" }
        return String(svg[start.lowerBound...])
    }
}
