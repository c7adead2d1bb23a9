import Foundation
import GRDB

/// A query generation: a stable view of the store that pinned contexts read from while other
/// connections and processes keep committing (Apple, "Accessing data when the store changes").
///
/// Debian's libsqlite3 is built without `sqlite3_snapshot_get`, so a generation is an open
/// read transaction on a connection of its own. SQLite keeps every page that transaction can
/// see until it ends: that is the snapshot, and it is also why a live generation holds the
/// WAL back (a checkpoint cannot copy frames past it). The transaction starts lazily, at the
/// first read of a context pinned to it, as `setQueryGenerationFrom(.current)` does, and
/// ends when the last context lets go of the generation (ARC, `deinit`).
public final class Generation {
    /// The opaque token (`g1`, `g2`, …) a user passes to `pin TOKEN`; unique in a session.
    public let token: String
    private let file: StoreFile
    private let log: SQLDebugLog?
    private var connection: DatabaseQueue?
    /// The WAL frame the snapshot was taken at (`mxFrame` then), when the store's `-shm`
    /// could be read.
    public private(set) var snapshotFrame: Int?

    init(token: String, file: StoreFile, log: SQLDebugLog?) {
        self.token = token
        self.file = file
        self.log = log
    }

    deinit { release() }

    /// For a past generation the store's files hold, read in place, its token (`w3`): it
    /// holds nothing back and never changes.
    public var pastToken: String? { file.image?.token }

    /// Whether the snapshot has been taken (by a read of a context pinned here).
    public var isStarted: Bool { connection != nil }

    /// How far this generation holds the WAL back: the frames committed since its snapshot,
    /// which no checkpoint can copy into the database file while it lives, and their bytes
    /// in the `-wal` file; both from one reading of the WAL index.
    public var heldBack: (frames: Int, bytes: Int)? {
        guard pastToken == nil, let snapshotFrame, let now = WALIndex.read(file) else { return nil }
        let frames = max(0, now.lastFrame - snapshotFrame)
        return (frames, frames * now.frameSize)
    }

    /// Reads at this generation's snapshot, taking it first if no read has yet.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try start()
        do {
            return try queue.unsafeReentrantRead(body)
        } catch let error as DatabaseError {
            throw StoreConnection.translate(error, file: file)
        }
    }

    private func start() throws -> DatabaseQueue {
        if let connection { return connection }
        let queue = try StoreConnection.open(file, readonly: true, holdsTransaction: true, log: log)
        do {
            // The snapshot is fixed by the transaction's first read. A commit landing between
            // reading the WAL index and that read would make the recorded frame wrong, so the
            // two are compared before and after, and the snapshot taken again if they differ.
            for attempt in 1...3 {
                let before = pastToken == nil ? WALIndex.read(file) : nil
                try queue.inDatabase { db in
                    try db.beginTransaction(.deferred)
                    try db.execute(sql: "SELECT rootpage FROM sqlite_master LIMIT 1")
                }
                let after = pastToken == nil ? WALIndex.read(file) : nil
                if before == after || attempt == 3 {
                    snapshotFrame = after?.lastFrame
                    if let log, log.shows(1) {
                        log.annotation("query generation \(token) pinned" + (snapshotFrame.map { " at WAL frame \($0)" } ?? ""))
                    }
                    break
                }
                try queue.inDatabase { try $0.rollback() }
            }
        } catch {
            throw StoreConnection.translate(error, file: file)
        }
        connection = queue
        return queue
    }

    /// Ends the read transaction and closes its connection, so checkpoints can pass it.
    func release() {
        guard let queue = connection else { return }
        connection = nil
        try? queue.inDatabase { db in
            if db.isInsideTransaction { try db.rollback() }
        }
        try? StoreConnection.close(queue)
    }
}

struct WeakGeneration {
    weak var generation: Generation?
}

/// What `pin` pins a context to.
public enum GenerationChoice {
    /// The generation of the newest transaction, taken at the context's next read.
    case current
    /// The generation a token names.
    case token(String)
    /// The generation another context is pinned to.
    case context(Context)
}

/// What pinning did.
public enum PinOutcome: Equatable {
    case pinned(token: String)
    /// The store cannot hold generations (it is not in WAL mode): the context stays
    /// unpinned, as Apple documents ("contexts gracefully revert to unpinned behavior").
    case unsupported(journalMode: String)
}
