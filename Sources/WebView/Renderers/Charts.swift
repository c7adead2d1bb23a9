import Foundation
import Inspector

/// Charts as plain SVG, drawn here (no library, no script): horizontal bars for where a
/// store's space goes, and columns over time, stacked by a series, for its history. Every
/// label is text and goes through the one escaping function.
enum Charts {
    /// One bar per item, its length by `value`, with the label and the value's text.
    static func bars(_ items: [(label: String, value: Double, text: String)], width: Int = 720) -> HTML {
        guard !items.isEmpty else { return "<p class=\"muted\">Nothing to chart.</p>" }
        let maximum = max(items.map(\.value).max() ?? 1, 1)
        let labelWidth = 300, row = 20
        let barSpace = Double(width - labelWidth - 110)
        var svg: HTML = "<svg class=\"chart\" role=\"img\" aria-label=\"bar chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(items.count * row + 6)\" viewBox=\"0 0 \(width) \(items.count * row + 6)\">"
        for (i, item) in items.enumerated() {
            let y = i * row + 3
            let length = max(1, Int(barSpace * item.value / maximum))
            let label = item.label.count > 46 ? String(item.label.prefix(45)) + "…" : item.label
            svg += "<text x=\"0\" y=\"\(y + 14)\">\(label)</text>"
                + "<rect class=\"bar\" x=\"\(labelWidth)\" y=\"\(y + 2)\" width=\"\(length)\" height=\"\(row - 6)\"><title>\(item.label): \(item.text)</title></rect>"
                + "<text x=\"\(labelWidth + length + 6)\" y=\"\(y + 14)\">\(item.text)</text>"
        }
        return svg + "</svg>"
    }

    /// Columns of counts over time: `points` (a time, a series, a count) gathered into at most
    /// `buckets` equal spans of time, each column stacked by series, with a legend.
    static func timeline(_ points: [(time: Date, series: String, count: Int)], buckets: Int = 60, width: Int = 760, height: Int = 180) -> HTML {
        guard let first = points.map(\.time).min(), let last = points.map(\.time).max() else {
            return "<p class=\"muted\">No transaction to chart.</p>"
        }
        // The series by their totals; past eight, the rest are one "other".
        var totals: [String: Int] = [:]
        for p in points { totals[p.series, default: 0] += p.count }
        let ranked = totals.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
        let named = Array(ranked.prefix(7))
        func series(_ name: String) -> String { named.contains(name) ? name : "other" }
        let legend = named + (ranked.count > 7 ? ["other"] : [])
        let span = max(last.timeIntervalSince(first), 1)
        let count = min(buckets, max(1, points.count))
        var columns = Array(repeating: [String: Int](), count: count)
        for p in points {
            let index = min(count - 1, Int(Double(count) * p.time.timeIntervalSince(first) / span))
            columns[index][series(p.series), default: 0] += p.count
        }
        let tallest = max(columns.map { $0.values.reduce(0, +) }.max() ?? 1, 1)
        let plot = Double(height - 30), left = 40.0
        let step = (Double(width) - left) / Double(count)
        var svg: HTML = "<svg class=\"chart\" role=\"img\" aria-label=\"transactions over time\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">"
        svg += "<line class=\"axis\" x1=\"\(Int(left))\" y1=\"\(Int(plot))\" x2=\"\(width)\" y2=\"\(Int(plot))\"></line>"
        svg += "<text x=\"0\" y=\"12\">\(tallest)</text><text x=\"0\" y=\"\(Int(plot))\">0</text>"
        for (i, column) in columns.enumerated() {
            var y = plot
            for (s, name) in legend.enumerated() {
                guard let n = column[name], n > 0 else { continue }
                let h = plot * Double(n) / Double(tallest)
                y -= h
                let from = first.addingTimeInterval(span * Double(i) / Double(count))
                svg += "<rect class=\"s\(s % 8)\" x=\"\(Int(left + step * Double(i)) + 1)\" y=\"\(Int(y))\" width=\"\(max(1, Int(step) - 2))\" height=\"\(max(1, Int(h)))\"><title>\(name): \(n) from \(OutputValue.date(from.timeIntervalSinceReferenceDate).text)</title></rect>"
            }
        }
        svg += "<text x=\"\(Int(left))\" y=\"\(height - 4)\">\(OutputValue.date(first.timeIntervalSinceReferenceDate).text)</text>"
        svg += "<text x=\"\(width - 190)\" y=\"\(height - 4)\">\(OutputValue.date(last.timeIntervalSinceReferenceDate).text)</text></svg>"
        let keys = HTML.joined(legend.enumerated().map { "<span><i class=\"swatch s\($0.offset % 8)\"></i>\($0.element)</span>" as HTML })
        return svg + "<p class=\"legend\">\(keys)</p>"
    }
}
