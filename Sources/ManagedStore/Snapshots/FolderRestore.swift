import Foundation

/// The folders beside a store (external data, CloudKit assets) brought to a snapshot's, in
/// the two halves a restore puts around its row commit: files added before it, files taken
/// away after it (`StoreRestore`).
struct FolderRestore {
    let snapshotFolder: URL
    let storeFolder: URL
    let disk: Disk
    /// Every companion folder either side has, relative to the store's folder.
    let relatives: [String]
    /// Files added, so that a failure before the commit can take them back.
    private(set) var added: [String] = []
    /// Folders made, likewise.
    private(set) var madeFolders: [String] = []
    /// Files the snapshot has under a name the store uses for other bytes: replaced after
    /// the commit (incoming copy, store path).
    private(set) var replacements: [(incoming: String, target: String)] = []

    init(snapshotFolder: URL, storePath: String, disk: Disk) {
        self.snapshotFolder = snapshotFolder
        self.disk = disk
        let storeURL = URL(fileURLWithPath: storePath)
        storeFolder = storeURL.deletingLastPathComponent()
        let companions = StoreCompanions(storePath: storePath)
        let snapshotCompanions = StoreCompanions(storePath: snapshotFolder.appendingPathComponent(storeURL.lastPathComponent).path)
        relatives = Set(companions.existingFolders + snapshotCompanions.existingFolders).sorted()
    }

    /// Before the rows: each file of the snapshot's folders that the store's lack is copied in
    /// under a temporary name (`.interim`, the name a save's unfinished file has, which the
    /// next write sweeps), synced, renamed, and the folder synced.
    mutating func addMissing() throws {
        for relative in relatives {
            let incoming = snapshotFolder.appendingPathComponent(relative).path
            guard FileManager.default.fileExists(atPath: incoming) else { continue }
            try add(from: incoming, to: storeFolder.appendingPathComponent(relative).path)
        }
    }

    private mutating func add(from incoming: String, to target: String) throws {
        madeFolders += try disk.makeFolders(target)
        var changed = false
        for name in try FileManager.default.contentsOfDirectory(atPath: incoming).sorted() {
            let source = incoming + "/" + name, destination = target + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                try add(from: source, to: destination)
                continue
            }
            if FileManager.default.fileExists(atPath: destination) {
                if !Self.sameBytes(source, destination) { replacements.append((source, destination)) }
                continue
            }
            let temporary = destination + ExternalDataFiles.interimSuffix
            try? disk.remove(temporary)
            try disk.copy(source, to: temporary)
            try disk.rename(temporary, to: destination)
            added.append(destination)
            changed = true
        }
        if changed { try disk.syncFolder(target) }
    }

    /// Before the rows: the snapshot's bytes of each file it replaces are copied beside that
    /// file under its `.interim` name and synced, with their folders, so that after the
    /// commit only a rename is left to do; a failure here stops the restore before any row
    /// changes.
    func stageReplacements() throws {
        for (incoming, target) in replacements {
            let temporary = target + ExternalDataFiles.interimSuffix
            try? disk.remove(temporary)
            try disk.copy(incoming, to: temporary)
        }
        for folder in Set(replacements.map { ($0.target as NSString).deletingLastPathComponent }).sorted() { try disk.syncFolder(folder) }
    }

    /// The rows were not restored: the files added go again, and the staged replacements.
    func undoAdded() {
        for (_, target) in replacements { try? disk.remove(target + ExternalDataFiles.interimSuffix) }
        for path in added.reversed() { try? disk.remove(path) }
        for folder in madeFolders.reversed() { disk.removeEmptyFolder(folder) }
    }

    /// After the rows: each staged file is renamed over the file it replaces and its folder
    /// synced, and what the snapshot's folders do not have is removed (a failure to remove
    /// leaves only files no restored row names). Throws, naming them, when a replaced file
    /// is not durably the snapshot's: the restored rows name it.
    func removeAndReplace() throws {
        var notReplaced: [String] = []
        var reason = ""
        var folders: [String: [String]] = [:]
        for (_, target) in replacements {
            do {
                try disk.rename(target + ExternalDataFiles.interimSuffix, to: target)
                folders[(target as NSString).deletingLastPathComponent, default: []].append(target)
            } catch let error as DiskError {
                notReplaced.append(target)
                reason = error.reason
            }
        }
        for (folder, targets) in folders.sorted(by: { $0.key < $1.key }) {
            do {
                try disk.syncFolder(folder)
            } catch let error as DiskError {
                notReplaced += targets
                reason = error.reason
            }
        }
        for relative in relatives {
            removeExtra(in: storeFolder.appendingPathComponent(relative).path, keeping: snapshotFolder.appendingPathComponent(relative).path)
        }
        if !notReplaced.isEmpty { throw SnapshotError.filesNotReplaced(paths: notReplaced.sorted(), reason: reason) }
    }

    private func removeExtra(in target: String, keeping incoming: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: target) else { return }
        for name in names {
            let path = target + "/" + name, kept = incoming + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                if FileManager.default.fileExists(atPath: kept) { removeExtra(in: path, keeping: kept) } else { disk.removeTree(path) }
            } else if !FileManager.default.fileExists(atPath: kept) {
                try? disk.remove(path)
            }
        }
        if !FileManager.default.fileExists(atPath: incoming) { disk.removeEmptyFolder(target) }
    }

    /// Whether two files hold the same bytes (sizes first; contents read in pieces).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard let x = FileHandle(forReadingAtPath: a), let y = FileHandle(forReadingAtPath: b) else { return false }
        defer { try? x.close(); try? y.close() }
        let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber }
        guard let sa = size(a), sa == size(b) else { return false }
        while true {
            guard let p = try? x.read(upToCount: 1 << 20), let q = try? y.read(upToCount: 1 << 20) else { return false }
            if p != q { return false }
            if p.isEmpty { return true }
        }
    }
}
