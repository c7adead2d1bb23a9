import Foundation

/// Where command output goes. Rows are written as they are produced, and the sink is
/// flushed after each command so another program can drive cdinspect line by line.
public final class OutputSink: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    /// Table cells are cut to this width (with an ellipsis) when output is a terminal.
    public var terminalWidth: Int?

    public init(handle: FileHandle, terminalWidth: Int? = nil) {
        self.handle = handle
        self.terminalWidth = terminalWidth
        buffer.reserveCapacity(1 << 16)
    }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    public func line(_ text: String = "") {
        write(text)
        write("\n")
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        let data = Data(buffer)
        buffer.removeAll(keepingCapacity: true)
        do { try handle.write(contentsOf: data) } catch {
            // The reader went away (a closed pipe): there is nobody left to tell.
        }
    }
}
