import Foundation

/// Where command output goes. Rows are written as they are produced, and the sink is
/// flushed after each command so another program can drive cdinspect line by line.
public final class OutputSink {
    private let handle: FileHandle?
    /// What a sink without a file handle has been given (a tool result of `cdinspect mcp`).
    public private(set) var collected: [UInt8] = []
    // Appended to for every field of every row; the checks exclusivity enforcement would
    // add cost more than the writing itself, and the sink is only used from one thread.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    /// Table cells are cut to this width (with an ellipsis) when output is a terminal.
    public var terminalWidth: Int?
    /// Table headers are set in bold; only ever on a terminal, and never under `NO_COLOR`.
    public var usesColor = false

    public init(handle: FileHandle, terminalWidth: Int? = nil) {
        self.handle = handle
        self.terminalWidth = terminalWidth
        buffer.reserveCapacity(1 << 16)
    }

    /// A sink that keeps its output, for a caller that sends it on elsewhere.
    public init(collectingWithWidth terminalWidth: Int? = nil) {
        handle = nil
        self.terminalWidth = terminalWidth
    }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// One ASCII byte (a separator or newline).
    public func byte(_ b: UInt8) {
        buffer.append(b)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// A decimal integer, written without making a String.
    public func integer(_ value: Int64) {
        if value < 0 { buffer.append(45) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[19 - n] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                n += 1
            } while magnitude > 0
            buffer.append(contentsOf: raw[(20 - n)...])
        }
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Bytes as they are.
    func bytes(_ raw: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: raw)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// A string as the body of a JSON string literal (without the quotes): the bytes are
    /// scanned once and copied in runs, escaping only `"`, `\`, control characters and DEL.
    func jsonEscaped(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for i in 0..<utf8.count {
                let b = utf8[i]
                guard b < 0x20 || b == 34 || b == 92 || b == 0x7F else { continue }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                switch b {
                case 34: buffer.append(contentsOf: [92, 34])
                case 92: buffer.append(contentsOf: [92, 92])
                case 10: buffer.append(contentsOf: [92, 110])
                case 13: buffer.append(contentsOf: [92, 114])
                case 9: buffer.append(contentsOf: [92, 116])
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    buffer.append(contentsOf: [92, 117, 48, 48, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
                start = i + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        if buffer.count >= 1 << 16 { flush() }
    }

    /// A string as one CSV field (RFC 4180): as it is, or quoted with inner quotes doubled
    /// when it holds a comma, quote, CR or LF, decided by one scan over its bytes.
    func csvField(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            guard utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else {
                buffer.append(contentsOf: utf8)
                return
            }
            buffer.append(34)
            for b in utf8 {
                if b == 34 { buffer.append(34) }
                buffer.append(b)
            }
            buffer.append(34)
        }
        if buffer.count >= 1 << 16 { flush() }
    }

    public func line(_ text: String = "") {
        write(text)
        write("\n")
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        guard let handle else {
            collected += buffer
            buffer.removeAll(keepingCapacity: true)
            return
        }
        let data = Data(buffer)
        buffer.removeAll(keepingCapacity: true)
        do { try handle.write(contentsOf: data) } catch {
            // The reader went away (a closed pipe): there is nobody left to tell.
        }
    }
}
