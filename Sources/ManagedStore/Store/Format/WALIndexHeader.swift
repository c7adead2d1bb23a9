/// The header of a WAL store's shared-memory index, the `-shm` file (sqlite.org/walformat.html,
/// "2.1 The WAL-Index Header"): two copies of a 48-byte header, then the checkpoint
/// information, all in the writing machine's byte order.
///
/// - 0 version (3007000), 8 change counter, 12 "initialized", 13 big-endian checksums,
///   14 page size (16 bits; 65536 is kept as 1), 16 `mxFrame` (the last valid frame),
///   20 the database size in pages, 32 the WAL header's salts;
/// - 96 `nBackfill`: how many frames a checkpoint has copied into the main file. With 0, the
///   main file is the state before the WAL's first frame, so every commit's state can be read
///   exactly; with N, the main file holds frames 1…N's pages.
public struct WALIndexHeader: Sendable, Equatable {
    /// Bytes read: both header copies and the checkpoint information up to `nBackfill`.
    public static let size = 100

    public let lastFrame: Int
    public let pageSize: Int
    public let changeCounter: UInt32
    /// The WAL header's salts as the index copied them (8 bytes).
    public let salts: [UInt8]
    /// Frames copied into the main file by checkpoints (`nBackfill`).
    public let backfilledFrames: Int
    /// The first copy of the header, whole: it changes with every commit and checkpoint.
    public let raw: [UInt8]

    public enum Problem: Error, Equatable {
        /// The two copies differ: a writer was updating them (read again).
        case torn
        /// No connection has built the index yet (`isInit` 0), or it is not an index at all.
        case notInitialized
    }

    /// The header in `bytes` (at least `size` of them from the file's start).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<WALIndexHeader, Problem> {
        guard bytes.count >= size else { return .failure(.notInitialized) }
        guard bytes[0..<48].elementsEqual(bytes[48..<96]) else { return .failure(.torn) }
        guard bytes[12] != 0 else { return .failure(.notInitialized) }
        // Native order: the version reads as 3007000 one way round only.
        let bigEndian: Bool
        if FormatBytes.word(bytes, 0, bigEndian: false) == 3_007_000 { bigEndian = false }
        else if FormatBytes.word(bytes, 0, bigEndian: true) == 3_007_000 { bigEndian = true }
        else { return .failure(.notInitialized) }
        let word = { (offset: Int) in Int(FormatBytes.word(bytes, offset, bigEndian: bigEndian) ?? 0) }
        let rawPage = bigEndian ? Int(bytes[14]) << 8 | Int(bytes[15]) : Int(bytes[15]) << 8 | Int(bytes[14])
        let pageSize = (rawPage & 0xFE00) + ((rawPage & 0x0001) << 16)
        return .success(WALIndexHeader(lastFrame: word(16), pageSize: pageSize, changeCounter: UInt32(word(8)),
                                       salts: Array(bytes[32..<40]), backfilledFrames: word(96), raw: Array(bytes[0..<48])))
    }
}
