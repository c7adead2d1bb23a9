import Foundation

/// CSV records (RFC 4180: commas, quotes doubled inside quoted fields, fields over several
/// lines) read from a file a buffer at a time. A record is one byte buffer and the ranges
/// of its fields, reused from record to record: a million rows make no String per field.
/// A field keeps whether it was quoted, so that an unquoted empty field can mean nil and
/// `""` the empty string.
struct CSVReader {
    struct Field {
        var range: Range<Int>
        var quoted: Bool
    }

    private var file: FileChunks
    private var buffer: [UInt8] = []
    private var index = 0
    /// The line the record read last began on.
    private(set) var recordLine = 0
    private var line = 1
    /// The bytes of the record read last, its fields ranges of them.
    private(set) var bytes: [UInt8] = []
    private(set) var fields: [Field] = []

    init(path: String) throws {
        file = try FileChunks(path: path)
    }

    func close() { file.close() }

    @inline(__always)
    private mutating func next() throws -> UInt8? {
        if index >= buffer.count {
            guard let chunk = try file.next() else { return nil }
            buffer = chunk
            index = 0
        }
        let b = buffer[index]
        index += 1
        return b
    }

    private mutating func peek() throws -> UInt8? {
        guard let b = try next() else { return nil }
        index -= 1
        return b
    }

    /// The text of a field, checked to be UTF-8.
    func text(_ field: Field) throws -> String {
        let slice = bytes[field.range]
        // ASCII is valid UTF-8 as it is: the fast decoding, without the validating one.
        if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
        guard let s = String(bytes: slice, encoding: .utf8) else {
            throw ImportError.malformed(line: recordLine, why: "a field is not valid UTF-8")
        }
        return s
    }

    /// The common case at full speed: a whole line in the buffer, with no quote and no
    /// carriage return, is split at its commas in one pass. False (nothing consumed) for
    /// anything else, which the byte-by-byte reader takes.
    private mutating func readPlainLine() -> Bool {
        guard index < buffer.count else { return false }
        return buffer.withUnsafeBufferPointer { all -> Bool in
            var end = index
            while end < all.count {
                let b = all[end]
                if b == 10 { break }
                if b == 34 || b == 13 { return false }
                end += 1
            }
            guard end < all.count, end > index else { return false }
            let line = UnsafeBufferPointer(rebasing: all[index..<end])
            bytes.append(contentsOf: line)
            var start = 0
            for (i, b) in line.enumerated() where b == 44 {
                fields.append(Field(range: start..<i, quoted: false))
                start = i + 1
            }
            fields.append(Field(range: start..<line.count, quoted: false))
            recordLine = self.line
            self.line += 1
            index = end + 1
            return true
        }
    }

    /// Reads the next record into `bytes` and `fields`; false at the end of the file.
    /// Blank lines are passed over.
    mutating func read() throws -> Bool {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        if readPlainLine() { return true }
        var start = 0
        var quoted = false
        recordLine = line
        func endField() {
            fields.append(Field(range: start..<bytes.count, quoted: quoted))
            start = bytes.count
            quoted = false
        }
        while true {
            guard var b = try next() else {
                if fields.isEmpty && bytes.count == start && !quoted { return false }
                endField()
                return true
            }
            if b == 34 && bytes.count == start && !quoted {
                quoted = true
                // Inside quotes: up to the closing quote, "" being one quote.
                while true {
                    guard let q = try next() else { throw ImportError.malformed(line: recordLine, why: "a quoted field is not closed") }
                    if q == 10 { line += 1 }
                    if q == 34 {
                        if try peek() == 34 { _ = try next(); bytes.append(34); continue }
                        break
                    }
                    bytes.append(q)
                }
                guard let after = try next() else {
                    endField()
                    return true
                }
                b = after
                guard b == 44 || b == 10 || b == 13 else {
                    throw ImportError.malformed(line: line, why: "text follows a quoted field's closing quote")
                }
            }
            if b == 13 {
                if try peek() == 10 { continue }
                b = 10
            }
            switch b {
            case 44:
                endField()
            case 10:
                line += 1
                if fields.isEmpty && bytes.count == start && !quoted {
                    recordLine = line
                    continue
                }
                endField()
                return true
            default:
                bytes.append(b)
            }
        }
    }
}
