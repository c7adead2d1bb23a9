/// The 32-byte header of a `-wal` file (sqlite.org/fileformat2.html, "4.1 WAL File Format").
///
/// - magic `0x377f0682` or `0x377f0683`: the low bit says in which byte order the frames'
///   checksums read their 32-bit words (1: big-endian);
/// - the format version (3007000), the page size, the checkpoint sequence;
/// - salt-1 and salt-2, which every frame of this WAL repeats: frames with other salts were
///   written before the WAL was last restarted;
/// - a checksum of the first 24 bytes.
public struct WALHeader: Sendable, Equatable {
    public static let size = 32
    static let magic: UInt32 = 0x377f_0682

    /// Whether the checksums read their words big-endian (the magic's low bit).
    public let checksumsBigEndian: Bool
    public let pageSize: Int
    public let checkpointSequence: UInt32
    /// Salt-1 and salt-2 as the file stores them (8 bytes), compared byte for byte with frames'.
    public let salts: [UInt8]
    /// The header's own checksum, the seed of the first frame's running checksum.
    let checksum: (UInt32, UInt32)
    /// Whether the stored checksum matches the first 24 bytes: SQLite ignores the whole
    /// file when it does not.
    public let isValid: Bool

    public static func == (a: WALHeader, b: WALHeader) -> Bool {
        a.salts == b.salts && a.pageSize == b.pageSize && a.checkpointSequence == b.checkpointSequence && a.isValid == b.isValid
    }

    /// nil when the bytes are not a WAL header at all (too short, another magic).
    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.size, let magic = FormatBytes.u32(bytes, 0), magic & ~1 == Self.magic,
              let rawPageSize = FormatBytes.u32(bytes, 8), let sequence = FormatBytes.u32(bytes, 12),
              let c0 = FormatBytes.u32(bytes, 24), let c1 = FormatBytes.u32(bytes, 28) else { return nil }
        checksumsBigEndian = magic & 1 == 1
        // The field is 32 bits; 65536 is written as itself here (unlike the database header).
        pageSize = Int(rawPageSize)
        checkpointSequence = sequence
        salts = Array(bytes[16..<24])
        checksum = (c0, c1)
        let version = FormatBytes.u32(bytes, 4)
        var running = WALChecksum(bigEndian: checksumsBigEndian)
        running.add(UnsafeRawBufferPointer(rebasing: bytes[0..<24]))
        isValid = version == 3_007_000 && pageSize >= 512 && pageSize <= 65536 && pageSize & (pageSize - 1) == 0
            && running.value == (c0, c1)
    }

    public init?(_ bytes: [UInt8]) {
        guard let header = bytes.withUnsafeBytes({ WALHeader($0) }) else { return nil }
        self = header
    }
}

/// SQLite's WAL checksum (fileformat2.html, "4.2 Checksum Algorithm"): over 32-bit words
/// taken two at a time, `s0 += x[i] + s1; s1 += x[i+1] + s0`, in the byte order the WAL's magic
/// names. A frame's checksum continues from the one before it, so the first bad frame ends
/// the log.
struct WALChecksum {
    let bigEndian: Bool
    var s0: UInt32 = 0
    var s1: UInt32 = 0

    init(bigEndian: Bool, seed: (UInt32, UInt32) = (0, 0)) {
        self.bigEndian = bigEndian
        (s0, s1) = seed
    }

    var value: (UInt32, UInt32) { (s0, s1) }

    /// Adds the bytes, a multiple of 8 long (a frame header's first 8 bytes, a page).
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        let end = bytes.count & ~7
        var a = s0, b = s1
        if bigEndian {
            while offset < end {
                a = a &+ UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) &+ b
                b = b &+ UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)) &+ a
                offset += 8
            }
        } else {
            while offset < end {
                a = a &+ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) &+ b
                b = b &+ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)) &+ a
                offset += 8
            }
        }
        s0 = a
        s1 = b
    }
}

/// A frame's 24-byte header (fileformat2.html, "4.1"): the page number, the database size in
/// pages after a commit (0 on every frame but a transaction's last), the salts, the running
/// checksum.
public struct WALFrameHeader: Sendable, Equatable {
    public static let size = 24
    public let page: UInt32
    /// Non-zero only on a commit frame: the database's size in pages after that commit.
    public let commitSize: UInt32
    public let salt1: UInt32
    public let salt2: UInt32
    let checksum: (UInt32, UInt32)

    public var isCommit: Bool { commitSize != 0 }

    public static func == (a: WALFrameHeader, b: WALFrameHeader) -> Bool {
        a.page == b.page && a.commitSize == b.commitSize && a.salt1 == b.salt1 && a.salt2 == b.salt2
    }

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.size, let page = FormatBytes.u32(bytes, 0), let size = FormatBytes.u32(bytes, 4),
              let salt1 = FormatBytes.u32(bytes, 8), let salt2 = FormatBytes.u32(bytes, 12),
              let c0 = FormatBytes.u32(bytes, 16), let c1 = FormatBytes.u32(bytes, 20) else { return nil }
        self.page = page
        commitSize = size
        self.salt1 = salt1
        self.salt2 = salt2
        checksum = (c0, c1)
    }

    /// Whether the frame carries these salts (the header's 8 salt bytes).
    func carries(_ salts: [UInt8]) -> Bool {
        salts.count == 8 && salts.withUnsafeBytes { FormatBytes.u32($0, 0) == salt1 && FormatBytes.u32($0, 4) == salt2 }
    }
}
