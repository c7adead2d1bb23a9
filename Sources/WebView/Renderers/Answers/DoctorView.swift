import Foundation
import Inspector

/// `doctor`'s report drawn: its verdict, where the space goes as a chart (tables, indexes,
/// history, the model cache, free pages), the heaviest attributes, and the findings, each
/// entity linked to its objects and each example object to itself. The web view's doctor
/// page and the MCP doctor view are this.
enum DoctorView {
    static func html(_ report: OutputValue) -> HTML {
        let errors = report["errors"]?.intValue ?? 0
        var body: HTML = "<p class=\"\(errors > 0 ? "error" : "note")\" id=\"verdict\">\(report["verdict"]?.text ?? "")</p>"
        let space = report["space"] ?? .null
        let items = (space["items"]?.items ?? []).filter { $0["kind"]?.text != "file" }
        body += "<h2>Space</h2><p class=\"muted\">\((space["totalBytes"]?.intValue ?? 0).groupedDigits) bytes in all.</p>"
        body += Charts.bars(items.map { item in
            let bytes = Double(item["bytes"]?.intValue ?? 0)
            return ("\(item["kind"]?.text ?? ""): \(item["name"]?.text ?? "")", bytes,
                    "\(Int64(bytes).groupedDigits) bytes (\(item["share"]?.text ?? "")%)")
        })
        let heavy = space["heaviestAttributes"]?.items ?? []
        if !heavy.isEmpty {
            body += "<h3>Heaviest attributes</h3>" + Charts.bars(heavy.map { a in
                ("\(a["entity"]?.text ?? "").\(a["attribute"]?.text ?? "")", Double(a["total"]?.intValue ?? 0),
                 "\((a["total"]?.intValue ?? 0).groupedDigits) bytes, largest \((a["largest"]?.intValue ?? 0).groupedDigits)")
            })
        }
        let findings = report["findings"]?.items ?? []
        body += "<h2>Findings</h2>"
        guard !findings.isEmpty else { return body + "<p class=\"muted\">None.</p>" }
        var table: HTML = "<table><tr><th>severity</th><th>check</th><th>entity</th><th>property</th><th>count</th><th>examples</th><th>detail</th></tr>"
        for f in findings {
            let entity = f["entity"]?.stringValue
            let entityCell: HTML = entity.map { "<a href=\"\(Paths.entity($0))\">\($0)</a>" } ?? "<span class=\"muted\">–</span>"
            let examples = HTML.joined((f["examples"]?.items ?? []).map { ValueView.html($0) }, separator: " ")
            let severity = f["severity"]?.text ?? ""
            table += "<tr><td class=\"\(severity == "error" ? "error" : severity == "warning" ? "warning" : "")\">\(severity)</td><td>\(f["check"]?.text ?? "")</td>"
                + "<td>\(entityCell)</td><td>\(f["property"]?.stringValue ?? "")</td><td class=\"num\">\(f["count"]?.text ?? "")</td>"
                + "<td>\(examples)</td><td>\(ValueView.cut(f["detail"]?.text ?? "", 400))</td></tr>"
        }
        return body + table + "</table>"
    }
}
