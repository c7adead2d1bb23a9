import Foundation

/// Every generation a store's files hold, oldest first, read with the format reader alone
/// (no SQLite, no lock, nothing written):
///
/// - `w0`, the main file: with `nBackfill` 0 the state before the `-wal`'s first frame;
/// - `w1`…`wN`, each transaction the `-wal` committed, in order: the main file plus the
///   frames up to that commit, which is how SQLite reads a store whose WAL stops there;
/// - what is past the log's end: frames of earlier WALs (other salts) and a transaction that
///   never committed. They are listed, never offered as generations of the current WAL.
///
/// A commit whose state the main file has since been partly overwritten for (a checkpoint
/// copied later frames' pages into it) is marked partial, with the pages concerned.
public struct StoreTimeline: Sendable {
    public enum Kind: String, Sendable {
        case mainFile = "main-file"
        case commit
        case earlierWAL = "earlier-wal"
        case uncommitted
    }

    public struct Entry: Sendable {
        public let token: String
        public let kind: Kind
        /// The commit's frames (numbered from 1), or the frames an entry past the end spans.
        public let frames: ClosedRange<Int>?
        /// Distinct pages the commit's frames wrote.
        public let pagesWritten: Int
        /// The database's size in pages at this generation (nil past the log's end).
        public let databasePages: Int?
        /// Main-file pages a checkpoint overwrote with a later state: 0 when exact.
        public let stalePages: Int
        /// What can and cannot be read from it, for entries that are not an exact generation.
        public let note: String?

        public var isReadable: Bool { kind == .mainFile || kind == .commit }
        public var isPartial: Bool { stalePages > 0 }
    }

    public let mainPath: String
    public let header: DatabaseHeader
    /// The `-wal`'s frames, or nil when there is no `-wal`.
    public let log: WALLog?
    /// The `-shm` header, when there is one for this WAL.
    public let index: WALIndex?
    public let entries: [Entry]
    /// The `-wal`'s frames by page, shared by every image of this timeline.
    let pageIndex: WALPageIndex?

    /// Frames a checkpoint has copied into the main file (0 without a `-shm`).
    public var backfilledFrames: Int { index?.backfilledFrames ?? 0 }
    /// The token of the newest committed state: what SQLite reads.
    public var newestToken: String { "w\(log?.commits.count ?? 0)" }
    public var commits: [WALLog.Commit] { log?.commits ?? [] }

    /// Reads the timeline of the store at `path` from its main file, `-wal` and `-shm`; the
    /// same files read twice in one process (a store opened in place, then listed) are read
    /// once: `TimelineCache` keys a timeline by what the three files are now.
    public static func read(path: String) throws -> StoreTimeline {
        let state = TimelineCache.State(path: path)
        if let state, let cached = TimelineCache.shared.timeline(for: state) { return cached }
        let timeline = try readFiles(path: path)
        if let state { TimelineCache.shared.keep(timeline, for: state) }
        return timeline
    }

    private static func readFiles(path: String) throws -> StoreTimeline {
        guard let bytes = StoreFile.leadingBytes(of: path, count: DatabaseHeader.size),
              let header = bytes.withUnsafeBytes({ DatabaseHeader($0) }) else { throw StoreError.notSQLite(path: path) }
        let log = header.isWAL || StoreFile.status(path + "-wal") != nil ? WALLog.read(path: path + "-wal") : nil
        var index = WALIndex.read(sharedMemoryPath: path + "-shm", fallbackPageSize: header.pageSize)
        // An index written for another WAL (other salts) says nothing about this one.
        if let found = index, let walHeader = log?.header, found.header.count >= 40, Array(found.header[32..<40]) != walHeader.salts {
            index = nil
        }
        let mainPages = header.statedPageCount ?? Int((StoreFile.status(path)?.st_size ?? 0)) / header.pageSize
        let pageIndex = log.map(WALPageIndex.init)
        return StoreTimeline(mainPath: path, header: header, log: log, index: index,
                             entries: entries(log: log, pageIndex: pageIndex, mainPages: mainPages, backfilled: index?.backfilledFrames ?? 0),
                             pageIndex: pageIndex)
    }

    private static func entries(log: WALLog?, pageIndex: WALPageIndex?, mainPages: Int, backfilled: Int) -> [Entry] {
        var entries: [Entry] = []
        var note: String?
        if backfilled > 0, let log, let through = log.commits.last(where: { $0.lastFrame <= backfilled }) {
            note = "a checkpoint copied frames 1-\(backfilled) into it: it holds the state of w\(through.ordinal)"
        }
        entries.append(Entry(token: "w0", kind: .mainFile, frames: nil, pagesWritten: 0, databasePages: mainPages, stalePages: 0, note: note))
        guard let log else { return entries }
        for commit in log.commits {
            // The pages a checkpoint has overwritten in the main file with a later state, as
            // the image of this commit counts them.
            let stale = pageIndex?.stalePages(upTo: commit.lastFrame, backfilled: backfilled) ?? 0
            entries.append(Entry(token: "w\(commit.ordinal)", kind: .commit, frames: commit.firstFrame...commit.lastFrame,
                                 pagesWritten: Set(log.frames[(commit.firstFrame - 1)..<commit.lastFrame].map(\.page)).count,
                                 databasePages: commit.databasePages,
                                 stalePages: stale, note: Self.backfillNote(commit, stale: stale, backfilled: backfilled)))
        }
        if log.uncommittedFrames > 0 {
            let first = (log.commits.last?.lastFrame ?? 0) + 1
            entries.append(Entry(token: "uncommitted", kind: .uncommitted, frames: first...log.frames.count,
                                 pagesWritten: Set(log.frames[(first - 1)...].map(\.page)).count, databasePages: nil, stalePages: 0,
                                 note: "a transaction that never committed: SQLite ignores it; its pages are not a generation"))
        }
        if let leftovers = log.leftovers {
            entries.append(Entry(token: "earlier", kind: .earlierWAL, frames: leftovers.firstFrame...(leftovers.firstFrame + leftovers.frames - 1),
                                 pagesWritten: 0, databasePages: nil, stalePages: 0,
                                 note: "\(leftovers.frames) frame\(leftovers.frames == 1 ? "" : "s") (\(leftovers.commits) commit\(leftovers.commits == 1 ? "" : "s")) "
                                     + "left by \(leftovers.earlierLogs == 1 ? "an earlier WAL" : "\(leftovers.earlierLogs) earlier WALs") past the current one's end: "
                                     + "their pages were checkpointed into the main file before the WAL restarted; single pages can be "
                                     + "read from them, not a whole generation"))
        }
        if let damage = log.damage {
            entries.append(Entry(token: "damaged", kind: .uncommitted, frames: damage.frame...damage.frame, pagesWritten: 0, databasePages: nil,
                                 stalePages: 0,
                                 note: "the -wal does not verify from frame \(damage.frame) on (\(damage.reason)): SQLite ignores "
                                     + "\(damage.hiddenCommits) committed transaction\(damage.hiddenCommits == 1 ? "" : "s") after it, which cannot be read exactly"))
        }
        return entries
    }

    /// Why committed transactions in the `-wal` are past its valid end, as SQLite's recovery
    /// would ignore them; nil when none are.
    public var walDamage: String? {
        guard let log, let damage = log.damage, damage.hiddenCommits > 0 else { return nil }
        if log.header?.isValid == false { return WALFile.damagedHeader(frames: log.frameCapacity, bytes: log.fileSize) }
        return WALFile.hiddenCommits(damage.hiddenCommits, from: damage.frame)
    }

    /// Whether a word is written as a past generation's token (`w0`, `w12`).
    public static func isPastToken(_ word: String) -> Bool {
        let lower = word.lowercased()
        return lower.count >= 2 && lower.first == "w" && lower.dropFirst().allSatisfy(\.isASCII) && Int(lower.dropFirst()) != nil
    }

    /// What a checkpoint that copied frames into the main file means for a commit: partial
    /// where later saves overwrote pages it reads from the main file; and for any commit it
    /// copied, the state before it is gone, so what it changed cannot be told.
    private static func backfillNote(_ commit: WALLog.Commit, stale: Int, backfilled: Int) -> String? {
        guard commit.firstFrame <= backfilled else { return nil }
        let before = "what it changed cannot be told: a checkpoint copied it into the main file, and the state before it is gone"
        guard stale > 0 else { return "reads exactly; " + before }
        return "partial: a checkpoint has copied later saves into the main file, so \(stale) page\(stale == 1 ? "" : "s") read from it "
            + "\(stale == 1 ? "holds" : "hold") a later state; " + before
    }

    /// The entry a token names; the error names the tokens there are.
    public func entry(_ token: String) throws -> Entry {
        if let found = entries.first(where: { $0.token == token.lowercased() }) { return found }
        if token.lowercased() == "newest" || token.lowercased() == "current", let newest = entries.first(where: { $0.token == newestToken }) { return newest }
        throw StoreError.unknownGeneration(token: token, known: knownTokens)
    }

    /// The tokens, shortened to a range for a long WAL (`w0…w168`).
    public var knownTokens: String {
        let count = commits.count
        return count <= 3 ? (0...count).map { "w\($0)" }.joined(separator: ", ") : "w0…w\(count)"
    }

    /// What SQLite needs to read the generation a token names, in place.
    public func image(_ token: String) throws -> GenerationImage {
        let found = try entry(token)
        guard found.isReadable else { throw StoreError.unreadableGeneration(token: found.token, why: found.note ?? found.kind.rawValue) }
        let ordinal = found.kind == .mainFile ? 0 : Int(found.token.dropFirst()) ?? 0
        return image(ordinal: ordinal)
    }

    /// The image of commit `ordinal` (0: the main file alone).
    func image(ordinal: Int) -> GenerationImage {
        let commit = ordinal > 0 ? log?.commits[ordinal - 1] : nil
        return GenerationImage(mainPath: mainPath, walPath: mainPath + "-wal", pageSize: header.pageSize,
                               pageCount: commit?.databasePages ?? entries[0].databasePages ?? 0, token: "w\(ordinal)",
                               frames: pageIndex, lastFrame: commit?.lastFrame ?? 0,
                               salts: log?.header?.salts ?? [], backfilledFrames: backfilledFrames, walDamage: walDamage)
    }
}

/// Timelines read in this process, by the state of the files they were read from: each file's
/// identity, size and modification time (nanoseconds), and the `-shm`'s header, which every
/// commit and checkpoint changes. At most two are kept.
final class TimelineCache: @unchecked Sendable {
    static let shared = TimelineCache()

    struct State: Hashable {
        let path: String
        let files: [Int64]
        let index: [UInt8]

        init?(path: String) {
            var files: [Int64] = []
            for suffix in ["", "-wal"] {
                guard let info = StoreFile.status(path + suffix) else { files += [-1]; continue }
                #if canImport(Darwin)
                let modified = info.st_mtimespec
                #else
                let modified = info.st_mtim
                #endif
                files += [Int64(info.st_dev), Int64(info.st_ino), Int64(info.st_size), Int64(modified.tv_sec), Int64(modified.tv_nsec)]
            }
            guard files[0] != -1 else { return nil }
            self.path = path
            self.files = files
            index = WALIndex.read(sharedMemoryPath: path + "-shm", fallbackPageSize: 0)
                .map { $0.header + withUnsafeBytes(of: Int64($0.backfilledFrames)) { Array($0) } } ?? []
        }
    }

    private let lock = NSLock()
    private var kept: [(State, StoreTimeline)] = []

    func timeline(for state: State) -> StoreTimeline? {
        lock.withLock { kept.first { $0.0 == state }?.1 }
    }

    func keep(_ timeline: StoreTimeline, for state: State) {
        lock.withLock {
            kept.removeAll { $0.0 == state }
            kept.append((state, timeline))
            if kept.count > 2 { kept.removeFirst() }
        }
    }
}
