import Foundation
import Inspector
import ManagedStore

/// `/changes`, with `--write`: the page context's pending changes as `changes` lists them,
/// what the last Save or Discard said, the checks a save failed on their fields, and Save and
/// Discard.
struct ChangesPage {
    let page: PageRequest

    func response() throws -> WebResponse {
        guard let editor = page.site.editor else {
            throw PageNotFound(description: "This web view is read-only: it has no changes (start it with --write to edit).")
        }
        let rows = editor.pending
        let outcome = editor.outcome
        let problems = editor.problems
        var value: [(String, OutputValue)] = [("changes", .array(rows))]
        if let outcome { value.append(("outcome", .object([("text", .string(outcome.text)), ("error", .bool(outcome.isError))]))) }
        value.append(("problems", .object(problems.map { ($0.0, .string($0.1)) })))
        return try page.answer(title: "Changes", crumbs: [page.storeCrumb, ("changes", nil)], value: .object(value)) {
            var body: HTML = "<h1>Changes</h1>"
            if let outcome { body += "<p class=\"\(outcome.isError ? "error" : "note")\" id=\"outcome\">\(outcome.text)</p>" }
            guard !rows.isEmpty else { return body + "<p class=\"muted\">No unsaved change. Edit a value on an object's page.</p>" }
            var table: HTML = "<table><tr><th>change</th><th>object</th><th>keys</th></tr>"
            for row in rows {
                let id = row["objectID"]?.stringValue ?? ""
                table += "<tr><td>\(row["change"]?.text ?? "")</td><td>\(ValueView.html(row["objectID"] ?? .null))</td><td>\(row["keys"]?.text ?? "")</td></tr>"
                _ = id
            }
            body += table + "</table>"
            if !problems.isEmpty {
                body += "<h2>Problems</h2><ul>" + HTML.joined(problems.map { key, problem in
                    let object = key.split(separator: ".").first.map(String.init) ?? key
                    let link: HTML = Paths.object(object).map { "<a href=\"\($0)\">\(key)</a>" } ?? "\(key)"
                    return "<li class=\"field-error\">\(link): \(problem)</li>"
                }) + "</ul>"
            }
            body += "<p>\(page.layout.form(Paths.save, "Save", primary: true)) \(page.layout.form(Paths.discard, "Discard"))</p>"
            return body
        }
    }
}
