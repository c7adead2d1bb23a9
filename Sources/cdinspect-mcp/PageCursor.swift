import Foundation
import MCP

/// Where the next page of a tool's rows starts, handed to the client as the opaque
/// `nextCursor` of MCP's pagination and taken back as `cursor`. It holds the call's own
/// arguments, so a page can never be read with other ones by mistake.
struct PageCursor: Codable, Equatable {
    /// The tool, and its arguments but the cursor.
    var tool: String
    var arguments: [String: Value]
    /// Rows already returned.
    var offset: Int
    /// Rows still to return under the call's `limit`; nil for no limit.
    var remaining: Int?

    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// The cursor a client sent back, checked against the call it came with.
    init(_ text: String, tool: String, arguments: [String: Value]) throws {
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard let data = Data(base64Encoded: base64), let cursor = try? JSONDecoder().decode(PageCursor.self, from: data),
              cursor.offset >= 0, (cursor.remaining ?? 1) > 0 else {
            throw MCPError.invalidParams("\(tool): 'cursor' is not a cursor this server gave (pass a nextCursor back unchanged)")
        }
        guard cursor.tool == tool else {
            throw MCPError.invalidParams("\(tool): 'cursor' continues a \(cursor.tool) call")
        }
        guard arguments.isEmpty || arguments == cursor.arguments else {
            throw MCPError.invalidParams("\(tool): 'cursor' continues a call with other arguments (send the cursor alone, or with the same arguments)")
        }
        self = cursor
    }

    init(tool: String, arguments: [String: Value], offset: Int, remaining: Int?) {
        self.tool = tool
        self.arguments = arguments
        self.offset = offset
        self.remaining = remaining
    }
}
