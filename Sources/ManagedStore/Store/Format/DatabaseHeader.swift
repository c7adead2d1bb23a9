/// The first 100 bytes of an SQLite database file (sqlite.org/fileformat2.html, "1.3 The
/// Database Header"), the fields the format readers need.
public struct DatabaseHeader: Sendable, Equatable {
    public static let size = 100

    public let pageSize: Int
    /// Bytes 18 and 19: 2 in a WAL-mode file, 1 in a rollback-journal one.
    public let writeVersion: UInt8
    public let readVersion: UInt8
    /// Bytes at the end of each page that the b-tree does not use.
    public let reservedBytes: Int
    public let changeCounter: UInt32
    /// The size in pages, trusted only when `versionValidFor` equals the change counter.
    public let pageCount: Int
    public let firstFreelistTrunk: UInt32
    public let freelistPages: Int
    /// Non-zero in an auto-vacuum database: the largest root page.
    public let largestRootPage: UInt32
    public let incrementalVacuum: Bool
    public let versionValidFor: UInt32

    /// The page bytes a b-tree uses.
    public var usableSize: Int { pageSize - reservedBytes }
    public var isWAL: Bool { writeVersion == 2 || readVersion == 2 }
    /// The page count the header states, or nil when it is stale (an older SQLite wrote the file).
    public var statedPageCount: Int? { changeCounter == versionValidFor && pageCount > 0 ? pageCount : nil }

    /// Where the journal-mode bytes are: a generation read in place reports 1 in both, so
    /// that SQLite reads it as an ordinary file and looks for no `-wal`.
    static let journalModeBytes = 18..<20

    /// nil when the bytes are not an SQLite header (too short, another magic, a page size
    /// that is no power of two from 512 to 65536).
    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.size, bytes[0..<16].elementsEqual("SQLite format 3\0".utf8),
              let rawPageSize = FormatBytes.u16(bytes, 16) else { return nil }
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return nil }
        self.pageSize = pageSize
        writeVersion = bytes[18]
        readVersion = bytes[19]
        reservedBytes = Int(bytes[20])
        changeCounter = FormatBytes.u32(bytes, 24) ?? 0
        pageCount = Int(FormatBytes.u32(bytes, 28) ?? 0)
        firstFreelistTrunk = FormatBytes.u32(bytes, 32) ?? 0
        freelistPages = Int(FormatBytes.u32(bytes, 36) ?? 0)
        largestRootPage = FormatBytes.u32(bytes, 52) ?? 0
        incrementalVacuum = FormatBytes.u32(bytes, 64) ?? 0 != 0
        versionValidFor = FormatBytes.u32(bytes, 92) ?? 0
        guard reservedBytes < pageSize - 480 else { return nil }
    }
}
