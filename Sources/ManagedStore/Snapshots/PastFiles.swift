import Foundation

/// The saves a store's `-wal` holds, kept with a snapshot: its main file and `-wal` copied as
/// they are into the snapshot's `past/` folder, so that `generations` and `--generation` read
/// them there after a write has checkpointed the store itself (docs/generations.md).
///
/// The snapshot's own copy comes from SQLite's backup API: one file, the newest state only.
/// These files are copied inside the same read transaction, which keeps the WAL from
/// restarting (its frames stay where they are); a checkpoint may still copy frames into the
/// main file meanwhile, so the `-shm`'s `nBackfill` is read before and after, and the copy
/// kept only when it stayed 0: then the copied main file is the state before the first frame
/// and every commit reads exactly.
enum PastFiles {
    static let folder = "past"

    /// Copies the store's files into `snapshot/past/`; the number of commits kept (0: none,
    /// for a store whose `-wal` holds none, or whose past a checkpoint has begun to fold).
    static func keep(_ store: PersistentStore, in snapshot: URL, disk: Disk) throws -> Int {
        guard store.file.journalMode == .wal, let timeline = try? StoreTimeline.read(path: store.path),
              !timeline.commits.isEmpty, timeline.backfilledFrames == 0,
              let main = HeldDescriptors.kept(store.path) else { return 0 }
        let backfilled = { WALIndex.read(sharedMemoryPath: store.file.sharedMemoryPath, fallbackPageSize: store.file.pageSize)?.backfilledFrames ?? 0 }
        let target = snapshot.appendingPathComponent(folder)
        try disk.makeFolders(target.path)
        let name = URL(fileURLWithPath: store.path).lastPathComponent
        let copy = target.appendingPathComponent(name).path
        // The -wal first: its frames up to the read transaction's stay put while it lasts.
        try disk.copy(store.file.walPath, to: copy + "-wal")
        try disk.copy(reading: main, from: store.path, to: copy)
        guard backfilled() == 0 else {
            disk.removeTree(target.path)
            return 0
        }
        try disk.syncFolder(target.path)
        return timeline.commits.count
    }
}
