import Foundation

/// Where command output goes. Rows are written as they are produced, and the sink is
/// flushed after each command so another program can drive cdinspect line by line.
public final class OutputSink {
    private let handle: FileHandle?
    /// Where a forwarding sink's bytes go (a web response written as it is made); false back
    /// means nobody reads any more, and later output is dropped.
    private let forward: (([UInt8]) -> Bool)?
    /// The forwarding target said it reads no more.
    public private(set) var closed = false
    /// What a sink without a file handle has been given (a tool result of `cdinspect mcp`).
    public private(set) var collected: [UInt8] = []
    /// Bytes not yet written: raw memory, copied into with `memcpy`. Every field of every
    /// row passes through here, and an array's append (uniqueness and capacity checks, a
    /// generic copy loop) cost more than the formatting itself.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    // The checks exclusivity enforcement would add cost more than the writing itself, and
    // the sink is only used from one thread.
    @exclusivity(unchecked) private var count = 0
    /// Table cells are cut to this width (with an ellipsis) when output is a terminal.
    public var terminalWidth: Int?
    /// Table headers are set in bold; only ever on a terminal, and never under `NO_COLOR`.
    public var usesColor = false
    /// A collecting sink keeps at most this many bytes: what comes after is dropped, and
    /// `overflowed` says so (an MCP answer has a byte cap; a fetch of large blobs must not
    /// be held whole first).
    public let byteLimit: Int?
    /// Whether bytes past `byteLimit` were dropped; a command may stop when it sees this.
    public private(set) var overflowed = false
    /// Where `csvField(composedBy:)` composes a field.
    private var scratch: OutputSink?
    /// How dates are written (`--time-zone`, `--stored-dates`): the command's, set for each
    /// command by the session; UTC and ISO 8601 alone unless asked.
    public var dateStyle = DateStyle.utc
    /// Where rows go as values rather than as text (see `ResultReceiver`).
    public weak var resultReceiver: ResultReceiver?

    /// A file sink writes each time 64 KiB have gathered; a collecting sink grows instead.
    public init(handle: FileHandle, terminalWidth: Int? = nil) {
        self.handle = handle
        forward = nil
        self.terminalWidth = terminalWidth
        byteLimit = nil
        capacity = 1 << 16
        storage = .allocate(capacity: capacity)
    }

    /// A sink that keeps its output, for a caller that sends it on elsewhere.
    public init(collectingWithWidth terminalWidth: Int? = nil, byteLimit: Int? = nil) {
        handle = nil
        forward = nil
        self.terminalWidth = terminalWidth
        self.byteLimit = byteLimit
        capacity = 256
        storage = .allocate(capacity: capacity)
    }

    /// A sink that hands its output on in pieces of up to 64 KiB as it is written (and at
    /// each flush), for a caller that sends it somewhere as it comes (a web download).
    public init(forwarding: @escaping ([UInt8]) -> Bool) {
        handle = nil
        forward = forwarding
        byteLimit = nil
        capacity = 1 << 16
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// Room for `n` more bytes: written out (a file sink) or grown (a collecting sink, or a
    /// single write larger than the buffer).
    @inline(__always)
    private func reserve(_ n: Int) {
        if count + n > capacity { makeRoom(n) }
    }

    private func makeRoom(_ n: Int) {
        if handle == nil, let byteLimit, collected.count + count + n > byteLimit {
            // Bytes past the limit are written over: the sink never grows much beyond it.
            overflowed = true
            count = max(0, min(count, byteLimit - collected.count))
            if count + n <= capacity { return }
        }
        if handle != nil || forward != nil {
            flush()
            if n <= capacity { return }
        }
        var grown = capacity * 2
        while grown < count + n { grown *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.update(from: storage, count: count)
        storage.deallocate()
        storage = moved
        capacity = grown
    }

    public func write(_ text: String) {
        text.withBytesInPlace { bytes(UnsafeRawBufferPointer($0)) }
    }

    /// Text known when the program was built: its bytes as they are, with no String to
    /// count references to (a row's opening in JSON, once a row).
    func write(static text: StaticString) {
        bytes(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// One ASCII byte (a separator or newline).
    public func byte(_ b: UInt8) {
        reserve(1)
        storage[count] = b
        count += 1
    }

    /// A decimal integer, written without making a String: two digits at a time from the
    /// end, after counting them (a key and a number on every row of a fetch).
    public func integer(_ value: Int64) {
        reserve(20)
        if value < 0 {
            storage[count] = 45
            count += 1
        }
        var magnitude = value.magnitude
        var digits = 1
        var probe = magnitude
        while probe >= 100 { probe /= 100; digits += 2 }
        if probe >= 10 { digits += 1 }
        var end = storage + count + digits
        let pairs = OutputValue.digitPairs.utf8Start
        while magnitude >= 100 {
            let pair = pairs + Int(magnitude % 100) * 2
            magnitude /= 100
            end -= 2
            end[0] = pair[0]
            end[1] = pair[1]
        }
        if magnitude >= 10 {
            let pair = pairs + Int(magnitude) * 2
            end[-2] = pair[0]
            end[-1] = pair[1]
        } else {
            end[-1] = UInt8(truncatingIfNeeded: 48 + magnitude)
        }
        count += digits
    }

    /// A date as `dateStyle` shows it, formatted straight into the buffer: ISO 8601 (in
    /// quotes for JSON), or the stored number for a value no calendar date fits. With the
    /// stored value asked for, it follows in parentheses, or in JSON the date becomes
    /// `{"date": "…", "stored": seconds}`.
    func date(_ referenceSeconds: Double, json: Bool) {
        let stored = dateStyle.showsStored
        if json && stored { write(static: "{\"date\": ") }
        reserve(OutputValue.isoDateMaxLength + 2)
        if json { storage[count] = 34; count += 1 }
        if let n = OutputValue.writeISODate(referenceSeconds, offset: dateStyle.offset(at: referenceSeconds), to: storage + count) {
            count += n
        } else {
            write(OutputValue.formatReal(referenceSeconds))
        }
        if json { byte(34) }
        guard stored else { return }
        write(static: json ? ", \"stored\": " : " (")
        if json && !referenceSeconds.isFinite {
            JSON.string(OutputValue.formatReal(referenceSeconds), to: self)
        } else {
            OutputValue.withRealText(referenceSeconds) { bytes(UnsafeRawBufferPointer($0)) }
        }
        byte(json ? 125 : 41)
    }

    /// Bytes as they are.
    func bytes(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, !raw.isEmpty else { return }
        reserve(raw.count)
        UnsafeMutableRawPointer(storage + count).copyMemory(from: base, byteCount: raw.count)
        count += raw.count
    }

    /// A string as the body of a JSON string literal (without the quotes): the bytes are
    /// scanned once and copied in runs, escaping only `"`, `\`, control characters and DEL.
    func jsonEscaped(_ text: String) {
        text.withBytesInPlace { jsonEscaped(utf8: $0) }
    }

    /// As `jsonEscaped(_:)`, for bytes known to be UTF-8.
    func jsonEscaped(utf8: UnsafeBufferPointer<UInt8>) {
        // Nearly every string needs no escaping: one scan, one copy.
        guard utf8.contains(where: { $0 < 0x20 || $0 == 34 || $0 == 92 || $0 == 0x7F }) else {
            return bytes(UnsafeRawBufferPointer(utf8))
        }
        var start = 0
        for i in 0..<utf8.count {
            let b = utf8[i]
            guard b < 0x20 || b == 34 || b == 92 || b == 0x7F else { continue }
            bytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[start..<i])))
            byte(92)
            switch b {
            case 34: byte(34)
            case 92: byte(92)
            case 10: byte(110)
            case 13: byte(114)
            case 9: byte(116)
            default:
                let hex: StaticString = "0123456789abcdef"
                for digit: UInt8 in [117, 48, 48, hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 0xF)]] { byte(digit) }
            }
            start = i + 1
        }
        bytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[start...])))
    }

    /// A string as one CSV field (RFC 4180): as it is, or quoted with inner quotes doubled
    /// when it holds a comma, quote, CR or LF, decided by one scan over its bytes.
    func csvField(_ text: String) {
        text.withBytesInPlace { csvField(utf8: $0) }
    }

    /// A field whose text `body` writes (a list or an object's `key=value` pairs), quoted as
    /// CSV needs: written first into a scratch sink this sink keeps, so that no String is made.
    func csvField(composedBy body: (OutputSink) -> Void) {
        let scratch = self.scratch ?? OutputSink(collectingWithWidth: nil)
        self.scratch = scratch
        scratch.count = 0
        body(scratch)
        csvField(utf8: UnsafeBufferPointer(start: scratch.storage, count: scratch.count))
    }

    /// As `csvField(_:)`, for bytes known to be UTF-8.
    func csvField(utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else {
            bytes(UnsafeRawBufferPointer(utf8))
            return
        }
        byte(34)
        // Runs between quotes copied whole; each quote doubled.
        var start = 0
        for (index, b) in utf8.enumerated() where b == 34 {
            bytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start...index]))
            byte(34)
            start = index + 1
        }
        bytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start...]))
        byte(34)
    }

    public func line(_ text: String = "") {
        write(text)
        write("\n")
    }

    public func flush() {
        guard count > 0 else { return }
        defer { count = 0 }
        if let forward {
            if !closed { closed = !forward(Array(UnsafeBufferPointer(start: storage, count: count))) }
            return
        }
        guard let handle else {
            let kept = byteLimit.map { max(0, min(count, $0 - collected.count)) } ?? count
            if kept < count { overflowed = true }
            collected.append(contentsOf: UnsafeBufferPointer(start: storage, count: kept))
            return
        }
        writeAll(handle.fileDescriptor, storage, count)
    }
}

/// write(2) until every byte is out, or until it fails: a reader that went away (a closed
/// pipe) leaves nobody to tell. The system call itself, because FileHandle's
/// `write(contentsOf:)` wraps the bytes in `Data`, whose first use costs more than a
/// small command's whole output.
private func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) {
    var written = 0
    while written < count {
        let result = write(descriptor, bytes + written, count - written)
        if result < 0 && errno == EINTR { continue }
        guard result > 0 else { return }
        written += result
    }
}

extension String {
    /// The UTF-8 bytes where a native string keeps them. `withUTF8` is mutating and so
    /// needs a copy of the string to call on: a retain and a release for every value
    /// written, at a million rows a measurable share of a fetch.
    fileprivate func withBytesInPlace<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }
}
