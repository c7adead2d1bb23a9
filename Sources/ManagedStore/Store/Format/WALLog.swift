import Foundation

/// Every frame of a `-wal` file, read once from its start, checked as SQLite's recovery checks
/// them (sqlite.org/fileformat2.html, "4.3 Checkpoint Algorithm" and "4.4 WAL Reset";
/// sqlite.org/walformat.html):
///
/// - a frame is valid when it carries the header's salts and its running checksum matches;
///   the first frame that is not ends the log, and SQLite ignores everything after it;
/// - a transaction counts only when it ends in a valid commit frame, so valid frames after
///   the last commit are a transaction that never committed (an uncommitted tail);
/// - after a checkpoint the WAL restarts: new frames overwrite it from the start with new
///   salts, and frames past the new end keep the old ones: leftovers of an earlier WAL,
///   whose pages a checkpoint had already copied into the main file;
/// - a frame past the end that carries the current salts, and a commit among them, means
///   the log was damaged there: SQLite silently ignores committed transactions.
///
/// Frames are read in pieces of a few hundred kilobytes, so memory stays flat whatever the
/// file's size; what is kept per frame is its page number and commit size.
public struct WALLog: Sendable {
    public struct Frame: Sendable, Equatable {
        public let page: UInt32
        /// The database's size in pages after this commit; 0 on frames that are not a
        /// transaction's last.
        public let commitSize: UInt32
    }

    /// One committed transaction: frames `firstFrame...lastFrame` (numbered from 1).
    public struct Commit: Sendable, Equatable {
        /// 1 for the WAL's first transaction.
        public let ordinal: Int
        public let firstFrame: Int
        public let lastFrame: Int
        /// The database's size in pages after it.
        public let databasePages: Int
    }

    /// Frames past the end of the log that carry other salts: written before the WAL was
    /// last restarted.
    public struct Leftovers: Sendable, Equatable {
        public let firstFrame: Int
        public let frames: Int
        /// Commit frames among them.
        public let commits: Int
        /// How many earlier WALs they come from (distinct salt pairs).
        public let earlierLogs: Int
    }

    /// Why frames carrying the current salts are past the end: SQLite ignores them.
    public struct Damage: Sendable, Equatable {
        /// The first frame that does not verify.
        public let frame: Int
        public let reason: String
        /// Commit frames with the current salts after it: committed transactions SQLite ignores.
        public let hiddenCommits: Int
    }

    public let header: WALHeader?
    public let fileSize: Int
    /// The valid frames, numbered from 1 (index 0 is frame 1): the committed ones, then the
    /// uncommitted tail.
    public let frames: [Frame]
    public let commits: [Commit]
    public let leftovers: Leftovers?
    public let damage: Damage?

    /// Frames after the last commit that verify but never committed.
    public var uncommittedFrames: Int { frames.count - (commits.last?.lastFrame ?? 0) }
    /// Frames the file has room for, valid or not.
    public var frameCapacity: Int {
        guard let header else { return 0 }
        return max(0, (fileSize - WALHeader.size) / (header.pageSize + WALFrameHeader.size))
    }

    /// Where frame `number` (from 1) starts in the file; its page follows its 24-byte header.
    public func frameOffset(_ number: Int) -> Int64 {
        Self.frameOffset(number, pageSize: header?.pageSize ?? 0)
    }

    static func frameOffset(_ number: Int, pageSize: Int) -> Int64 {
        Int64(WALHeader.size) + Int64(number - 1) * Int64(pageSize + WALFrameHeader.size)
    }

    /// The log of the `-wal` at `path`, or nil when there is no such file.
    public static func read(path: String) -> WALLog? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        // SQLite holds no lock on a `-wal` file, so closing this descriptor drops none.
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return read(descriptor: fd, size: Int(info.st_size))
    }

    /// The log in `size` bytes of a descriptor (a file, or bytes a fuzz target wrote).
    static func read(descriptor fd: Int32, size: Int) -> WALLog {
        var headerBytes = [UInt8](repeating: 0, count: WALHeader.size)
        let got = headerBytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, WALHeader.size, 0) }
        guard got == WALHeader.size, let header = WALHeader(headerBytes) else {
            return WALLog(header: nil, fileSize: size, frames: [], commits: [], leftovers: nil, damage: nil)
        }
        let frameSize = header.pageSize + WALFrameHeader.size
        let capacity = max(0, (size - WALHeader.size) / frameSize)
        guard header.isValid else {
            let damage = capacity > 0 ? Damage(frame: 1, reason: "the -wal header does not verify (its checksum or version)",
                                               hiddenCommits: Self.pastTheEnd(fd, header: header, from: 1, to: capacity).currentCommits) : nil
            return WALLog(header: header, fileSize: size, frames: [], commits: [], leftovers: nil, damage: damage)
        }
        var frames: [Frame] = []
        var commits: [Commit] = []
        var checksum = WALChecksum(bigEndian: header.checksumsBigEndian, seed: header.checksum)
        var brokenAt: Int?
        var reason = ""
        let framesPerRead = max(1, (512 * 1024) / frameSize)
        var buffer = [UInt8](repeating: 0, count: framesPerRead * frameSize)
        var number = 1
        reading: while number <= capacity {
            let count = min(framesPerRead, capacity - number + 1)
            let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count * frameSize, off_t(frameOffset(number, pageSize: header.pageSize))) }
            guard read == count * frameSize else { brokenAt = number; reason = "the file could not be read"; break }
            let stop: (Int, String)? = buffer.withUnsafeBytes { all in
                for i in 0..<count {
                    let frame = UnsafeRawBufferPointer(rebasing: all[(i * frameSize)..<((i + 1) * frameSize)])
                    guard let frameHeader = WALFrameHeader(frame) else { return (number + i, "it is cut short") }
                    guard frameHeader.carries(header.salts) else { return (number + i, "it carries another WAL's salts") }
                    guard frameHeader.page > 0 else { return (number + i, "its page number is 0") }
                    var next = checksum
                    next.add(UnsafeRawBufferPointer(rebasing: frame[0..<8]))
                    next.add(UnsafeRawBufferPointer(rebasing: frame[WALFrameHeader.size...]))
                    guard next.value == frameHeader.checksum else { return (number + i, "its checksum does not match") }
                    checksum = next
                    frames.append(Frame(page: frameHeader.page, commitSize: frameHeader.commitSize))
                    if frameHeader.isCommit {
                        let first = (commits.last?.lastFrame ?? 0) + 1
                        commits.append(Commit(ordinal: commits.count + 1, firstFrame: first, lastFrame: frames.count,
                                              databasePages: Int(frameHeader.commitSize)))
                    }
                }
                return nil
            }
            if let stop { (brokenAt, reason) = stop; break reading }
            number += count
        }
        var leftovers: Leftovers?
        var damage: Damage?
        if let brokenAt {
            let past = Self.pastTheEnd(fd, header: header, from: brokenAt, to: capacity)
            if past.leftoverFrames > 0 {
                leftovers = Leftovers(firstFrame: past.firstLeftover ?? brokenAt, frames: past.leftoverFrames,
                                      commits: past.leftoverCommits, earlierLogs: past.saltPairs)
            }
            if past.currentCommits > 0 {
                damage = Damage(frame: brokenAt, reason: reason, hiddenCommits: past.currentCommits)
            }
        }
        return WALLog(header: header, fileSize: size, frames: frames, commits: commits, leftovers: leftovers, damage: damage)
    }

    /// What the frames from `first` on are, by their headers alone (their checksums cannot
    /// be checked once the chain is broken).
    private static func pastTheEnd(_ fd: Int32, header: WALHeader, from first: Int, to last: Int)
        -> (leftoverFrames: Int, leftoverCommits: Int, firstLeftover: Int?, saltPairs: Int, currentCommits: Int) {
        var result = (leftoverFrames: 0, leftoverCommits: 0, firstLeftover: Int?.none, saltPairs: 0, currentCommits: 0)
        guard first <= last else { return result }
        var pairs = Set<UInt64>()
        var frameHeader = [UInt8](repeating: 0, count: WALFrameHeader.size)
        for number in first...last {
            let read = frameHeader.withUnsafeMutableBytes { pread(fd, $0.baseAddress, WALFrameHeader.size, off_t(frameOffset(number, pageSize: header.pageSize))) }
            guard read == WALFrameHeader.size, let parsed = frameHeader.withUnsafeBytes({ WALFrameHeader($0) }) else { break }
            if parsed.carries(header.salts) {
                if parsed.isCommit { result.currentCommits += 1 }
            } else if parsed.page > 0 {
                result.leftoverFrames += 1
                if result.firstLeftover == nil { result.firstLeftover = number }
                if parsed.isCommit { result.leftoverCommits += 1 }
                pairs.insert(UInt64(parsed.salt1) << 32 | UInt64(parsed.salt2))
            }
        }
        result.saltPairs = pairs.count
        return result
    }
}
