import Foundation
import Inspector
import ManagedStore

/// `/model`: `model graph`'s answer drawn (`ModelView`), the diagram's entities linked to
/// their grids, and, given `--compare`, `model diff` against that model.
struct ModelPage {
    let page: PageRequest

    func response() throws -> WebResponse {
        let model = page.store.model
        let answer = try page.run(["model", "graph", "--format", "json"]).json
        var diff: OutputValue?
        if let other = page.site.options.compareWith { diff = try page.run(["model", "diff", other]).json }
        var svg: String?
        var drawingProblem: String?
        // The page's own drawing: its entities link to their grids.
        do { svg = try Graphviz.svg(try ModelDiagram(model).dot(link: { Paths.entity($0) })) } catch { drawingProblem = "\(error)" }
        var value = answer.pairs
        if let diff { value.append(("diff", diff)) }
        return try page.answer(title: "Model", crumbs: [page.storeCrumb, ("model", nil)], value: .object(value)) {
            var body: HTML = "<h1>Model</h1><p>\(model.entities.count) entities · <a href=\"\(Paths.model).json\">the cards, Mermaid and DOT as JSON</a></p>"
            if let diff {
                body += "<h2>Against \(page.site.options.compareWith ?? "")</h2><p>\(diff["verdict"]?.text ?? "")</p>"
                body += ValueView.html(diff["changes"] ?? diff, characters: ValueView.pageCharacters)
            }
            return body + ModelView.html(answer, svg: svg, problem: drawingProblem)
        }
    }
}
