import Foundation
import GRDB

/// `doctor`: where the space goes, what is broken, and (given the next model version)
/// which rows its migration would reject. Read-only, in one read transaction.
public struct StoreDoctor {
    public struct Report: Sendable {
        public var space: StoreSpace
        public var findings: [DoctorFinding]
        /// Rows the new model would reject; nil when no new model was given.
        public var migration: [DoctorFinding]?
        /// The new model's entity version hashes against the store's metadata; nil when no
        /// new model was given. All equal: Core Data opens the store with it as is.
        public var versionHashes: [EntityHashComparison]?

        public var errors: Int { (findings + (migration ?? [])).filter { $0.severity == .error }.count }
        public var warnings: Int { (findings + (migration ?? [])).filter { $0.severity == .warning }.count }

        public var verdict: String {
            if errors == 0 && warnings == 0 {
                return migration == nil ? "no problem found" : "no problem found, and every row migrates to the new model"
            }
            return "\(errors) error(s), \(warnings) warning(s)"
        }
    }

    public let store: PersistentStore
    /// `PRAGMA integrity_check` instead of the quicker `quick_check`.
    public var fullIntegrityCheck = false
    public var newModel: ManagedObjectModel?

    public init(store: PersistentStore) { self.store = store }

    /// Two halves on two connections at once (a machine has two cores at least): the
    /// file's own checks and the keys between rows on the store's connection, and the one
    /// pass over every table with the checks that rest on it on a second. Each reads its
    /// own snapshot; under a writer committing meanwhile they may see different moments.
    public func examine(progress: @escaping @Sendable (String) -> Void = { _ in }) throws -> Report {
        let second = try StoreConnection.open(store.file, readonly: true)
        defer { try? StoreConnection.close(second) }
        let keys = Background { [store, fullIntegrityCheck] in
            try store.read { db -> (StoreSpace.Pages, [DoctorFinding]) in
                let pages = try StoreSpace.Pages(db, progress: progress)
                var health = StoreHealth(store: store)
                health.fullIntegrityCheck = fullIntegrityCheck
                return (pages, try health.findings(db, .fileAndKeys, census: nil, progress: progress))
            }
        }
        let rows = Result {
            try second.read { db -> (TableCensus, [DoctorFinding], [DoctorFinding]?) in
                let census = try TableCensus(store: store, db, progress: progress)
                let findings = try StoreHealth(store: store).findings(db, .rows, census: census, progress: progress)
                var migration: [DoctorFinding]?
                if let newModel {
                    progress("checking rows against the new model")
                    migration = try MigrationRowCheck(store: store, newModel: newModel).findings(db)
                }
                return (census, findings, migration)
            }
        }
        let (pages, keyFindings) = try keys.value()
        let (census, rowFindings, migration) = try rows.get()
        let space = try store.read { try StoreSpace(store: store, census: census, pages: pages, $0) }
        let wal = Self.uncheckpointedLog(store: store, space: space).map { [$0] } ?? []
        return Report(space: space, findings: wal + keyFindings + rowFindings, migration: migration,
                      versionHashes: newModel.map { EntityHashComparison.compare($0, with: store.metadata) })
    }
}

extension StoreDoctor {
    /// A `-wal` whose commits not yet copied into the main file are most of the store: a
    /// copy of the `.sqlite` alone is an older state (Notes' and Photos' stores pulled off a
    /// Mac mid-session), and every reader replays the log. Core Data checkpoints when the
    /// last connection closes, or every 1,000 pages a writer adds.
    static func uncheckpointedLog(store: PersistentStore, space: StoreSpace) -> DoctorFinding? {
        guard space.files.wal > 0, let timeline = try? StoreTimeline.read(path: store.path),
              let last = timeline.commits.last?.lastFrame else { return nil }
        let pending = timeline.commits.filter { $0.lastFrame > timeline.backfilledFrames }
        let bytes = Int64(last - timeline.backfilledFrames) * space.pageSize
        guard !pending.isEmpty, bytes > space.files.mainFile else { return nil }
        let share = Int((Double(bytes) * 100 / Double(bytes + space.files.mainFile)).rounded())
        return DoctorFinding(.warning, "wal_not_checkpointed", count: Int64(pending.count), detail:
            "the -wal holds \(pending.count) commits (\(bytes.groupedDigits) bytes of pages, \(share)% of the store) not yet copied into the main file: "
            + "the .sqlite alone is an older state, so copy it with its -wal and -shm; Core Data copies them in (a checkpoint) when the app closes the store")
    }
}

/// Work on a thread of its own, waited for with `value()`; an error it throws is thrown there.
final class Background<T>: @unchecked Sendable {
    private var result: Result<T, Error>?
    private let done = DispatchSemaphore(value: 0)

    /// The work runs on the new thread only; it is not touched from here after the start.
    private struct Work: @unchecked Sendable {
        let run: () throws -> T
    }

    init(_ work: @escaping () throws -> T) {
        let job = Work(run: work)
        let thread = Thread { [self] in
            result = Result { try job.run() }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    func value() throws -> T {
        done.wait()
        return try result!.get()
    }
}
