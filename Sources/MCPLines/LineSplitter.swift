/// Standard input's bytes cut into the MCP server's messages, one per line, in time linear in
/// the input however it arrives: a line is gathered piece by piece and handed over at its
/// newline, and a line longer than `maximumLine` is dropped as it grows (never held whole) and
/// reported once, at its newline, as `.overlong`.
public struct LineSplitter {
    public enum Line: Equatable {
        case message([UInt8])
        case overlong
    }

    public let maximumLine: Int
    private var line: [UInt8] = []
    private var overlong = false

    public init(maximumLine: Int) {
        self.maximumLine = maximumLine
    }

    /// Feeds one read's bytes; `each` gets every line the bytes complete, in order.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ each: (Line) -> Void) {
        var start = 0
        for i in 0..<chunk.count where chunk[i] == 10 {
            if overlong {
                each(.overlong)
            } else {
                line.append(contentsOf: chunk[start..<i])
                if line.count > maximumLine { each(.overlong) } else { each(.message(line)) }
            }
            line.removeAll(keepingCapacity: line.count < 1 << 16)
            overlong = false
            start = i + 1
        }
        if !overlong {
            line.append(contentsOf: chunk[start..<chunk.count])
            if line.count > maximumLine {
                overlong = true
                line = []
            }
        }
    }
}
