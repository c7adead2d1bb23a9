import Foundation
import MCP

/// Where the next page of a tool's rows starts. The client gets a short opaque handle for it
/// (MCP pagination's `nextCursor`) and sends it back as `cursor`; the server keeps what it
/// stands for: the call's own arguments, so that a page is never read with other ones by
/// mistake, and which can be megabytes (a 4 MB query), so a reply never carries them.
struct PageCursor: Equatable {
    /// The tool, and its arguments but the cursor.
    var tool: String
    var arguments: [String: Value]
    /// Rows already returned.
    var offset: Int
    /// Rows still to return under the call's `limit`; nil for no limit.
    var remaining: Int?

    init(tool: String, arguments: [String: Value], offset: Int, remaining: Int?) {
        self.tool = tool
        self.arguments = arguments
        self.offset = offset
        self.remaining = remaining
    }

    /// The cursor a client sent back, checked against the call it came with.
    init(_ handle: String, tool: String, arguments: [String: Value]) throws {
        guard let cursor = CursorTable.shared.cursor(handle) else {
            throw MCPError.invalidParams("\(tool): 'cursor' is not a cursor this server gave, or it has expired "
                                         + "(pass a nextCursor back unchanged, or call again without one)")
        }
        guard cursor.tool == tool else {
            throw MCPError.invalidParams("\(tool): 'cursor' continues a \(cursor.tool) call")
        }
        guard arguments.isEmpty || arguments == cursor.arguments else {
            throw MCPError.invalidParams("\(tool): 'cursor' continues a call with other arguments (send the cursor alone, or with the same arguments)")
        }
        self = cursor
    }

    /// The handle the client gets: 32 hexadecimal digits, whatever the call's arguments.
    var handle: String { CursorTable.shared.keep(self) }
}

/// The cursors the server has handed out, by handle: the newest kept, within a count and a
/// byte budget (a cursor holds its call's arguments), the oldest forgotten first. A client
/// that comes back with a forgotten one is told to start the call again.
final class CursorTable: @unchecked Sendable {
    static let shared = CursorTable()
    /// At most this many cursors, and this many bytes of their arguments, are kept.
    static let count = 1000
    static let bytes = 64 << 20

    private let lock = NSLock()
    private var cursors: [String: (cursor: PageCursor, bytes: Int)] = [:]
    private var order: [String] = []
    private var held = 0

    func keep(_ cursor: PageCursor) -> String {
        var random = SystemRandomNumberGenerator()
        let handle = (0..<2).map { _ in String(random.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
        let size = (try? JSONEncoder().encode(cursor.arguments).count) ?? 0
        lock.lock()
        defer { lock.unlock() }
        cursors[handle] = (cursor, size)
        order.append(handle)
        held += size
        while order.count > Self.count || (held > Self.bytes && order.count > 1) {
            let oldest = order.removeFirst()
            held -= cursors.removeValue(forKey: oldest)?.bytes ?? 0
        }
        return handle
    }

    func cursor(_ handle: String) -> PageCursor? {
        lock.lock()
        defer { lock.unlock() }
        return cursors[handle]?.cursor
    }
}

extension String {
    /// The string with zeros before it, `width` characters in all.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
