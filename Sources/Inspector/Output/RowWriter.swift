/// Writes a stream of rows in one output format, without holding the stream: JSON and CSV
/// go out row by row; a table measures its column widths on the first rows only.
public final class RowWriter {
    public let columns: [String]
    private let format: OutputFormat
    private let sink: OutputSink
    private var pending: [[OutputValue]] = []
    private var widths: [Int]?
    @exclusivity(unchecked) private var count = 0
    /// Rows buffered to measure a table's columns before the first line is printed.
    static let measuredRows = 64

    /// Each column's `"name": ` in JSON (`, "name": ` after the first), or `name   = ` in
    /// line output (padded to the widest), made once rather than once per row.
    private let labels: ColumnLabels
    /// Columns that are a composite attribute's leaves (`address.city`): JSON nests them
    /// (`"address": {"city": …}`), as the app's dictionary holds them.
    private let nested: Set<String>

    /// The sink's receiver, which takes the rows as values instead of text.
    private let receiver: ResultReceiver?
    /// Rows go into the sink field by field as they are given (CSV, JSON, line); a table,
    /// nested JSON and a receiver take a row whole, collected in `fields`.
    private let streams: Bool
    @exclusivity(unchecked) private var field = 0
    private var fields: [OutputValue] = []
    private var plainURIPrefixes: [String] = []
    /// False once the receiver wants no more rows: a command that can stop early does.
    public private(set) var wantsMore = true

    init(columns: [String], format: OutputFormat, sink: OutputSink, nested: Set<String> = []) {
        self.columns = columns
        self.format = format
        self.sink = sink
        self.nested = nested
        receiver = sink.resultReceiver
        streams = receiver == nil && format != .table && (format != .json || nested.isEmpty)
        switch format {
        // After the first key, each carries the comma before it: one copy a field.
        case .json: labels = ColumnLabels(columns.enumerated().map { ($0.offset > 0 ? ", " : "") + JSON.quote($0.element) + ": " })
        case .line:
            let width = columns.map { TextWidth.of($0) }.max() ?? 0
            labels = ColumnLabels(columns.map { TextWidth.pad($0, to: width) + " = " })
        case .csv, .table: labels = ColumnLabels([])
        }
        guard receiver == nil else { return }
        switch format {
        case .json: sink.write("[")
        case .csv:
            for (i, column) in columns.enumerated() {
                if i > 0 { sink.byte(44) }
                sink.csvField(column)
            }
            sink.byte(10)
        case .table, .line: break
        }
    }

    deinit {
        labels.deallocate()
    }

    /// A row as JSON wants it: an object keyed by column (or by the given pairs).
    public func row(_ values: [OutputValue]) {
        guard streams else { return whole(values) }
        beginRow()
        for value in values { add(value) }
        endRow()
    }

    /// Starts a row given a field at a time (`add`), in column order, ended by `endRow`:
    /// a fetch hands each value over as it reads it, without an array per row.
    public func beginRow() {
        field = 0
        guard streams else { return fields.removeAll(keepingCapacity: true) }
        switch format {
        case .json: sink.write(static: count == 0 ? "\n  {" : ",\n  {")
        case .line: if count > 0 { sink.byte(10) }
        case .csv, .table: break
        }
    }

    public func add(_ value: OutputValue) {
        guard streams else { return fields.append(value) }
        defer { field += 1 }
        switch format {
        case .csv:
            if field > 0 { sink.byte(44) }
            if case .objectURI(let prefix, let key) = value, isPlain(prefix) {
                sink.write(prefix)
                sink.integer(key)
            } else {
                CSV.write(value, to: sink)
            }
        case .json:
            guard label() else { return }
            if case .objectURI(let prefix, let key) = value, isPlain(prefix) {
                sink.byte(34)
                sink.write(prefix)
                sink.integer(key)
                sink.byte(34)
            } else {
                value.writeJSON(to: sink)
            }
        case .line:
            guard label() else { return }
            value.writeText(to: sink)
            sink.byte(10)
        case .table: break
        }
    }

    /// An object URI, `prefix` and `key`, where the caller knows whether the prefix is
    /// plain (`isPlainInEveryFormat`): a fetch's rows share one prefix, so neither it nor
    /// an `OutputValue` holding it is copied for each row.
    public func add(objectURIPrefix prefix: String, key: Int64, plain: Bool) {
        guard streams, plain else { return add(.objectURI(prefix: prefix, key: key)) }
        defer { field += 1 }
        switch format {
        case .csv:
            if field > 0 { sink.byte(44) }
            sink.write(prefix)
            sink.integer(key)
        case .json:
            guard label() else { return }
            sink.byte(34)
            sink.write(prefix)
            sink.integer(key)
            sink.byte(34)
        case .line:
            guard label() else { return }
            sink.write(prefix)
            sink.integer(key)
            sink.byte(10)
        case .table: break
        }
    }

    /// An integer, written straight into the sink: a fetch's numbers take this way rather
    /// than through an `OutputValue` and the format's switch over it.
    public func add(integer: Int64) {
        guard streams else { return add(.integer(integer)) }
        guard separate() else { return }
        sink.integer(integer)
        if format == .line { sink.byte(10) }
    }

    /// A date as ISO 8601 (the same in every format but JSON's quotes), straight into the sink.
    public func add(date: Double) {
        guard streams else { return add(.date(date)) }
        guard separate() else { return }
        sink.date(date, json: format == .json)
        if format == .line { sink.byte(10) }
    }

    /// What goes before the current field in a streamed row: a comma, a JSON key or a line
    /// label; false past the last column. Counts the field.
    private func separate() -> Bool {
        defer { field += 1 }
        switch format {
        case .csv:
            if field > 0 { sink.byte(44) }
            return true
        case .json, .line: return label()
        case .table: return false
        }
    }

    /// A string as SQLite's row holds it, copied from its bytes without making a String.
    public func add(utf8: UnsafeBufferPointer<UInt8>) {
        // Text SQLite holds as something other than UTF-8 is repaired as a String would be.
        guard streams, utf8.allSatisfy({ $0 < 0x80 }) else { return add(.string(String(decoding: utf8, as: UTF8.self))) }
        defer { field += 1 }
        switch format {
        case .csv:
            if field > 0 { sink.byte(44) }
            sink.csvField(utf8: utf8)
        case .json:
            guard label() else { return }
            sink.byte(34)
            sink.jsonEscaped(utf8: utf8)
            sink.byte(34)
        case .line:
            guard label() else { return }
            sink.bytes(UnsafeRawBufferPointer(utf8))
            sink.byte(10)
        case .table: break
        }
    }

    public func endRow() {
        guard streams else { return whole(fields) }
        defer { count += 1 }
        switch format {
        case .json: sink.byte(125)
        case .csv: sink.byte(10)
        case .line, .table: break
        }
    }

    /// Whether an object URI's prefix needs neither CSV quoting nor JSON escaping, which
    /// settles every row of an entity once: the prefix is the same string on each.
    /// Rows of an entity hierarchy and their relationships' objects change entity from one
    /// value to the next: the prefixes found plain are remembered, a few of them.
    private func isPlain(_ prefix: String) -> Bool {
        if plainURIPrefixes.contains(prefix) { return true }
        guard RowWriter.isPlainInEveryFormat(prefix) else { return false }
        if plainURIPrefixes.count < 16 { plainURIPrefixes.append(prefix) }
        return true
    }

    /// Whether text needs neither CSV quoting nor JSON escaping.
    public static func isPlainInEveryFormat(_ text: String) -> Bool {
        !text.utf8.contains(where: { $0 < 0x20 || $0 == 44 || $0 == 34 || $0 == 92 || $0 == 0x7F })
    }

    /// The current field's label (`, "key": ` in JSON, `name = ` in line output); false
    /// past the last column.
    private func label() -> Bool {
        guard field < labels.count else { return false }
        sink.bytes(labels[field])
        return true
    }

    /// A row that is not streamed: to the receiver, nested JSON, or a table's rows.
    private func whole(_ values: [OutputValue]) {
        defer { count += 1 }
        if let receiver {
            if wantsMore { wantsMore = receiver.receive(record(values)) }
            return
        }
        switch format {
        case .json:
            sink.write(count == 0 ? "\n  " : ",\n  ")
            record(values).writeJSON(to: sink)
        case .table:
            if widths == nil {
                pending.append(values)
                if pending.count >= RowWriter.measuredRows { startTable() }
            } else {
                writeTableRow(values.map { $0.cellText(sink.dateStyle) })
            }
        case .csv, .line: break  // streamed: never collected whole
        }
    }

    /// A row as the object JSON prints for it.
    func record(_ values: [OutputValue]) -> OutputValue {
        nested.isEmpty ? .object(Array(zip(columns, values))) : .nesting(Array(zip(columns, values)), leaves: nested)
    }

    public func finish() {
        guard receiver == nil else { return }
        switch format {
        case .json: sink.line(count == 0 ? "]" : "\n]")
        case .table: if widths == nil { startTable() }
        case .csv, .line: break
        }
    }

    private func startTable() {
        var widths = columns.map { TextWidth.of($0) }
        for row in pending {
            for (i, value) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], TextWidth.of(TextWidth.singleLine(value.cellText(sink.dateStyle))))
            }
        }
        if let limit = sink.terminalWidth, !widths.isEmpty {
            widths = TextWidth.fit(widths, into: limit)
        }
        self.widths = widths
        writeTableRow(columns, bold: sink.usesColor)
        writeTableRow(widths.map { String(repeating: "-", count: $0) })
        for row in pending { writeTableRow(row.map { $0.cellText(sink.dateStyle) }) }
        pending = []
    }

    /// A row straight into the sink: each cell, then the spaces that pad it to its column.
    private func writeTableRow(_ cells: [String], bold: Bool = false) {
        guard let widths else { return }
        if bold { sink.write("\u{1B}[1m") }
        for (i, cell) in cells.enumerated() {
            let width = i < widths.count ? widths[i] : 0
            var text = TextWidth.singleLine(cell)
            if sink.terminalWidth != nil { text = TextWidth.truncate(text, to: width) }
            sink.write(text)
            if i < cells.count - 1 {
                for _ in 0..<(max(0, width - TextWidth.of(text)) + 2) { sink.byte(32) }
            }
        }
        if bold { sink.write("\u{1B}[0m") }
        sink.byte(10)
    }
}

/// Column labels' bytes in one block, allocated once for the writer's life (which frees
/// it): a label read from an array of arrays retained and released both arrays on every
/// field, a third of the time of a JSON fetch of three keys (`perf record`). Pointers
/// only, so reading a label counts no reference.
private struct ColumnLabels {
    private let block: UnsafeMutableRawBufferPointer
    /// Where each label starts in `block`, and where the last ends.
    private let starts: UnsafeMutableBufferPointer<Int>
    let count: Int

    init(_ labels: [String]) {
        count = labels.count
        starts = .allocate(capacity: labels.count + 1)
        block = .allocate(byteCount: labels.reduce(0) { $0 + $1.utf8.count }, alignment: 1)
        var offset = 0
        for (i, label) in labels.enumerated() {
            starts[i] = offset
            for byte in label.utf8 { block[offset] = byte; offset += 1 }
        }
        starts[labels.count] = offset
    }

    func deallocate() {
        block.deallocate()
        starts.deallocate()
    }

    subscript(i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: block[starts[i]..<starts[i + 1]])
    }
}

enum CSV {
    /// A value as one field, the common cases without an intermediate String.
    static func write(_ value: OutputValue, to sink: OutputSink) {
        switch value {
        case .integer(let i): sink.integer(i)
        case .null: sink.write("NULL")
        case .string(let s), .objectID(let s): sink.csvField(s)
        // Digits, letters, `.`, `-`, `+` and `:` only: never quoted.
        case .real, .date, .uuid: value.writeText(to: sink)
        case .bool(let b): sink.write(b ? "YES" : "NO")
        case .array, .object: sink.csvField { value.writeText(to: $0) }
        default: sink.csvField(value.text(sink.dateStyle))
        }
    }
}

enum TextWidth {
    /// Characters, as a terminal shows them; ASCII text (nearly every cell) by its bytes.
    static func of(_ s: String) -> Int {
        var s = s
        return s.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 } ? utf8.count : nil } ?? s.count
    }

    static func singleLine(_ s: String) -> String {
        // One byte scan settles ASCII text without a line break or tab (nearly every cell).
        var copy = s
        let plain = copy.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 && !(9...13).contains($0) } }
        if plain { return s }
        guard s.contains(where: { $0.isNewline || $0 == "\t" }) else { return s }
        return s.replacingOccurrences(of: "\r\n", with: "⏎").replacingOccurrences(of: "\n", with: "⏎")
            .replacingOccurrences(of: "\r", with: "⏎").replacingOccurrences(of: "\t", with: " ")
    }

    static func pad(_ s: String, to width: Int) -> String {
        let n = of(s)
        return n >= width ? s : s + String(repeating: " ", count: width - n)
    }

    static func truncate(_ s: String, to width: Int) -> String {
        guard of(s) > width, width >= 1 else { return s }
        return String(s.prefix(width - 1)) + "…"
    }

    /// Shrinks the widest columns until the row fits the terminal.
    static func fit(_ widths: [Int], into limit: Int) -> [Int] {
        var widths = widths
        let separators = 2 * (widths.count - 1)
        while widths.reduce(0, +) + separators > limit, let i = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[i] > 8 {
            widths[i] -= 1
        }
        return widths
    }
}
