import Foundation
import Inspector
import ManagedStore

/// The web view's renderers served as MCP Apps views (the `io.modelcontextprotocol/ui`
/// extension): one `ui://` document per view (`document`), which a host shows in a sandboxed
/// frame and hands each tool result to over `postMessage`, and the answer drawn for it
/// (`fragment`), which goes in the result's `_meta` beside the text and structured content the
/// model reads. The drawing is the web pages' own (`GridView`, `ModelView`, `DoctorView`,
/// `HistoryView`), from the same value as the structured content: one renderer, two doors,
/// every store value escaped as on the pages. A view loads nothing: its style and script are
/// in the document, and it reaches the store only by asking the host for a tool call.
public enum AppView {
    public static let mimeType = "text/html;profile=mcp-app"
    /// Where a tool result's `_meta` holds the drawn answer: `{"html": "…"}`.
    public static let metaKey = "io.github.cdinspect/view"
    /// The most a drawn answer takes of a reply (the reply's whole cap is the server's).
    public static let fragmentLimit = 1 << 20

    public static func uri(_ view: ToolView) -> String { "ui://cdinspect/\(view.rawValue)" }

    public static func view(uri: String) -> ToolView? { ToolView.allCases.first { self.uri($0) == uri } }

    public static func title(_ view: ToolView) -> String {
        switch view {
        case .grid: return "Rows as a grid"
        case .model: return "The model's diagram"
        case .doctor: return "Doctor's report"
        case .history: return "History's timeline"
        }
    }

    public static func summary(_ view: ToolView) -> String {
        switch view {
        case .grid: return "fetch's objects and sql's rows as a table, a page at a time; an object's link fetches it."
        case .model: return "model's graph view: the diagram and a card per entity with its version hash."
        case .doctor: return "doctor's report: where the space goes, as a chart, and the findings with their objects."
        case .history: return "history's transactions over time, as a chart, and their changes."
        }
    }

    /// The view's document: the web view's stylesheet and the view's script, inline.
    public static func document(_ view: ToolView) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>cdinspect: \(HTML.escaped(title(view)))</title>
        <style>\(Stylesheet.text)
        \(AppScript.style)</style>
        </head><body class="app" data-view="\(view.rawValue)"><main id="view" aria-live="polite"><p class="muted">Waiting for the tool's answer…</p></main>
        <script>\(AppScript.text)</script>
        </body></html>
        """
    }

    /// `answer` (a tool's structured content) drawn by `view`, within `budget` bytes: a page
    /// too large is drawn in part and says so; nil when not even that fits.
    public static func fragment(_ view: ToolView, tool: String, answer: OutputValue, budget: Int) -> String? {
        guard budget > 1024 else { return nil }
        let html: HTML
        switch view {
        case .grid: html = grid(tool, answer, budget: budget)
        case .model: html = model(answer, budget: budget)
        case .doctor: html = DoctorView.html(answer)
        case .history: html = history(tool, answer, budget: budget)
        }
        let wrapped: HTML = "<div class=\"app-view\" data-view=\"\(view.rawValue)\" data-tool=\"\(tool)\">\(html)</div>"
        return wrapped.text.utf8.count <= budget ? wrapped.text : nil
    }

    /// The page's rows; the first that fit when not all do.
    private static func grid(_ tool: String, _ answer: OutputValue, budget: Int) -> HTML {
        let rows = (answer["objects"] ?? answer["rows"])?.items ?? []
        let columns = GridView.columns(of: rows)
        var shown = rows.count
        var table = GridView.html(rows, columns: columns)
        while table.text.utf8.count > budget - 2048, shown > 0 {
            shown /= 2
            table = GridView.html(Array(rows.prefix(shown)), columns: columns)
        }
        let noun = answer["objects"] != nil ? "object" : "row"
        var html: HTML = "<p class=\"muted\">\(rows.count) \(noun)\(rows.count == 1 ? "" : "s") on this page"
        if shown < rows.count { html += "; the first \(shown) drawn (the answer holds them all)" }
        html += ".</p>" + table
        return html + pager(tool, answer)
    }

    private static func model(_ answer: OutputValue, budget: Int) -> HTML {
        guard answer["entities"] != nil, let dot = answer["dot"]?.stringValue else {
            // Another view of the model (its XML, hashes, a diff): as the value it is.
            return ValueView.html(answer, characters: ValueView.pageCharacters)
        }
        var svg: String?
        var problem: String?
        do { svg = try Graphviz.svg(dot) } catch { problem = "\(error)" }
        let drawn = ModelView.html(answer, svg: svg, problem: problem)
        if drawn.text.utf8.count <= budget - 256 || svg == nil { return drawn }
        return ModelView.html(answer, svg: nil, problem: "The drawing is too large for one answer")
    }

    private static func history(_ tool: String, _ answer: OutputValue, budget: Int) -> HTML {
        let transactions = answer["transactions"]?.items ?? []
        let html: HTML = "<p class=\"muted\">\(transactions.count) transaction\(transactions.count == 1 ? "" : "s") on this page, by author:</p>"
            + HistoryView.chart(transactions, by: "author") + HistoryView.transactions(transactions)
        return html + pager(tool, answer)
    }

    /// The next page, asked of the host as the same tool with the answer's cursor.
    private static func pager(_ tool: String, _ answer: OutputValue) -> HTML {
        guard let cursor = answer["nextCursor"]?.stringValue else { return .empty }
        return "<p class=\"pager\"><button type=\"button\" data-tool=\"\(tool)\" data-cursor=\"\(cursor)\">next page ›</button></p>"
    }
}
