import Foundation
import Inspector
import MCP

extension Value {
    /// A command's value as the MCP value of a tool's structured content, made from the
    /// value itself rather than by reading its JSON text back: each case as JSON output
    /// shows it (dates and UUIDs as their text, bytes as base64, a transformable decoded).
    /// SwiftData's JSON comes from the store as JSON text and is decoded as such; text that
    /// does not decode stays text.
    init(_ output: OutputValue) {
        switch output {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = Int(exactly: i).map { .int($0) } ?? .double(Double(i))
        case .real(let d): self = d.isFinite ? .double(d) : .string(output.text)
        case .string(let s), .objectID(let s): self = .string(s)
        case .date, .uuid, .objectURI, .data: self = .string(output.text)
        case .array(let items): self = .array(items.map(Value.init))
        case .object(let pairs): self = .object(Dictionary(pairs.map { ($0.0, Value($0.1)) }, uniquingKeysWith: { _, last in last }))
        case .archive(_, let bytes): self = Value(OutputValue(archiveBytes: bytes))
        case .json(let bytes):
            self = (try? JSONDecoder().decode(Value.self, from: Data(bytes))) ?? .string(String(decoding: bytes, as: UTF8.self))
        }
    }
}

/// Sizes as they go out on the wire: the reply line holds a tool's text as a JSON string, so
/// each quote and backslash in it takes one byte more.
enum ReplyBytes {
    static func escapedExtra(_ text: String) -> Int {
        var extra = 0
        for byte in text.utf8 where byte == 34 || byte == 92 || byte < 0x20 {
            extra += byte < 0x20 && byte != 10 && byte != 13 && byte != 9 ? 5 : 1
        }
        return extra
    }

    /// The bytes `text` takes inside the reply line.
    static func inReply(_ text: String) -> Int { text.utf8.count + escapedExtra(text) }
}

extension OutputValue {
    /// A tool call's JSON argument as the command layer holds JSON values.
    init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .integer(Int64(i))
        case .double(let d): self = .real(d)
        case .string(let s): self = .string(s)
        case .data(_, let bytes): self = .data(Array(bytes))
        case .array(let items): self = .array(items.map(OutputValue.init))
        case .object(let pairs): self = .object(pairs.sorted { $0.key < $1.key }.map { ($0.key, OutputValue($0.value)) })
        }
    }
}
