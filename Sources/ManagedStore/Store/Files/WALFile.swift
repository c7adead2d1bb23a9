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
    /// Why some committed changes in the `-wal` are not visible, or nil when all are.
    /// `visibleFrames` is the WAL index's `mxFrame` once SQLite has opened the store.
    public static func hiddenChanges(_ file: StoreFile, visibleFrames: Int, pageSize: Int) -> String? {
        guard let handle = FileHandle(forReadingAtPath: file.walPath) else { return nil }
        defer { try? handle.close() }
        let headerBytes = [UInt8]((try? handle.read(upToCount: WALHeader.size)) ?? Data())
        let size = file.walSize ?? 0
        let frameSize = pageSize + WALFrameHeader.size
        let frames = max(0, (size - WALHeader.size) / frameSize)
        guard headerBytes.count == WALHeader.size else { return nil }
        guard let header = WALHeader(headerBytes), header.isValid else {
            // SQLite ignores the whole file; it matters only when there were frames to ignore.
            guard frames > 0 else { return nil }
            return damagedHeader(frames: frames, bytes: size)
        }
        var hiddenCommits = 0
        var firstHidden: Int?
        for index in visibleFrames..<max(visibleFrames, frames) {
            try? handle.seek(toOffset: UInt64(WALLog.frameOffset(index + 1, pageSize: pageSize)))
            let bytes = [UInt8]((try? handle.read(upToCount: WALFrameHeader.size)) ?? Data())
            guard let frameHeader = bytes.withUnsafeBytes({ WALFrameHeader($0) }) else { break }
            guard frameHeader.carries(header.salts) else { continue }
            if firstHidden == nil { firstHidden = index + 1 }
            if frameHeader.isCommit { hiddenCommits += 1 }
        }
        guard hiddenCommits > 0, let firstHidden else { return nil }
        return Self.hiddenCommits(hiddenCommits, from: firstHidden)
    }

    /// What a user is told of a `-wal` whose header does not verify: SQLite ignores it whole.
    static func damagedHeader(frames: Int, bytes: Int) -> String {
        "its -wal file's header is damaged, so SQLite ignores all \(frames) frame\(frames == 1 ? "" : "s") "
            + "(\(bytes / 1024) KB) in it: the newest committed changes are not visible"
    }

    /// What a user is told of committed transactions past a frame that does not verify.
    static func hiddenCommits(_ count: Int, from frame: Int) -> String {
        "its -wal file does not verify from frame \(frame) on, so SQLite ignores "
            + "\(count) committed transaction\(count == 1 ? "" : "s") after it: the newest committed changes are not visible"
    }
}
