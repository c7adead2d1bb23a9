import Foundation

/// What a store's `-wal` file holds beyond what SQLite lets readers see.
///
/// When a `-wal` header or frame does not verify, SQLite's recovery keeps the frames before
/// it and silently ignores the rest, committed transactions included: the store opens and
/// reads fine, only older. The format (sqlite.org/fileformat2.html, "4. The Write-Ahead
/// Log") makes that detectable without SQLite's help:
///
/// - a 32-byte header: magic `0x377f0682`/`0x377f0683` (the low bit says the checksums'
///   word order), version, page size, checkpoint sequence, two salts, and a checksum of the
///   first 24 bytes;
/// - frames of a 24-byte header (page number, the database size for a commit frame and 0
///   otherwise, the two salts, a running checksum) and one page.
///
/// After SQLite has opened the store, the WAL index's `mxFrame` is the last frame it
/// accepted. A commit frame after it that carries the header's salts was written for this
/// WAL and committed, yet is not visible: that is damage. Frames with other salts are left
/// over from before the WAL was last restarted, and frames with no commit frame after them
/// belong to a transaction that never committed; both are ignored legitimately. Only the
/// frame headers past `mxFrame` are read, so the check costs nothing on a healthy store.
public enum WALFile {
    static let magic: UInt32 = 0x377f_0682
    static let headerSize = 32
    static let frameHeaderSize = 24

    /// Why some committed changes in the `-wal` are not visible, or nil when all are.
    /// `visibleFrames` is the WAL index's `mxFrame` once SQLite has opened the store.
    public static func hiddenChanges(_ file: StoreFile, visibleFrames: Int, pageSize: Int) -> String? {
        guard let handle = FileHandle(forReadingAtPath: file.walPath) else { return nil }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: headerSize)) ?? Data())
        let size = file.walSize ?? 0
        let frameSize = pageSize + frameHeaderSize
        let frames = max(0, (size - headerSize) / frameSize)
        guard header.count == headerSize else { return nil }
        guard let order = byteOrder(header), checksumMatches(header, order: order) else {
            // SQLite ignores the whole file; it matters only when there were frames to ignore.
            guard frames > 0 else { return nil }
            return "its -wal file's header is damaged, so SQLite ignores all \(frames) frame\(frames == 1 ? "" : "s") "
                + "(\(size / 1024) KB) in it: the newest committed changes are not visible"
        }
        let salts = header[16..<24]
        var hiddenCommits = 0
        var firstHidden: Int?
        for index in visibleFrames..<max(visibleFrames, frames) {
            try? handle.seek(toOffset: UInt64(headerSize + index * frameSize))
            let frameHeader = [UInt8]((try? handle.read(upToCount: frameHeaderSize)) ?? Data())
            guard frameHeader.count == frameHeaderSize else { break }
            guard frameHeader[8..<16].elementsEqual(salts) else { continue }
            if firstHidden == nil { firstHidden = index + 1 }
            if word(frameHeader, 4, .bigEndian) != 0 { hiddenCommits += 1 }
        }
        guard hiddenCommits > 0, let firstHidden else { return nil }
        return "its -wal file does not verify from frame \(firstHidden) on, so SQLite ignores "
            + "\(hiddenCommits) committed transaction\(hiddenCommits == 1 ? "" : "s") after it: the newest committed changes are not visible"
    }

    enum ByteOrder { case bigEndian, littleEndian }

    static func byteOrder(_ header: [UInt8]) -> ByteOrder? {
        let value = word(header, 0, .bigEndian)
        guard value & ~1 == magic else { return nil }
        return value & 1 == 1 ? .bigEndian : .littleEndian
    }

    static func word(_ bytes: [UInt8], _ offset: Int, _ order: ByteOrder) -> UInt32 {
        let b = bytes[offset..<offset + 4].map(UInt32.init)
        return order == .bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
                                   : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }

    /// The header's checksum over its first 24 bytes, stored big-endian in bytes 24–31.
    static func checksumMatches(_ header: [UInt8], order: ByteOrder) -> Bool {
        var s0: UInt32 = 0, s1: UInt32 = 0
        for offset in stride(from: 0, to: 24, by: 8) {
            s0 = s0 &+ word(header, offset, order) &+ s1
            s1 = s1 &+ word(header, offset + 4, order) &+ s0
        }
        return s0 == word(header, 24, .bigEndian) && s1 == word(header, 28, .bigEndian)
    }
}
