import Foundation

/// The folders Core Data keeps beside a store file, which belong to the store as much as
/// its rows do: the external binary data (`.<name>_SUPPORT/_EXTERNAL_DATA/<UUID>`, named
/// by the file name without its extension, observed in stores) and the CloudKit asset
/// staging folder (`<name>_ckAssets`; write-ups show it named both with and without the
/// extension, so both are looked for).
public struct StoreCompanions: Sendable {
    public let storePath: String

    public init(storePath: String) {
        self.storePath = storePath
    }

    private var url: URL { URL(fileURLWithPath: storePath) }
    private var directory: URL { url.deletingLastPathComponent() }
    private var baseName: String { url.deletingPathExtension().lastPathComponent }

    /// The external data folder, relative to the store's folder.
    public var externalDataName: String { ".\(baseName)_SUPPORT/_EXTERNAL_DATA" }
    public var externalData: URL { directory.appendingPathComponent(externalDataName) }

    /// The CloudKit asset folders that can belong to the store, relative to its folder.
    public var cloudKitAssetNames: [String] {
        let names = ["\(baseName)_ckAssets", "\(url.lastPathComponent)_ckAssets"]
        return names[0] == names[1] ? [names[0]] : names
    }

    /// Those of the folders above that exist, relative to the store's folder.
    public var existingFolders: [String] {
        ([externalDataName] + cloudKitAssetNames).filter { isDirectory(directory.appendingPathComponent($0)) }
    }

    /// The files directly in the external data folder.
    public var externalDataFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: externalData.path)) ?? []).sorted()
    }

    /// Whether another store file in the folder has the same name before its extension
    /// (`People.sqlite` beside `People.db`), and so the same `.<name>_SUPPORT` folder: then
    /// no file there can be called unreferenced from this store's rows alone.
    public var supportFolderIsShared: Bool {
        let own = url.lastPathComponent
        let siblings = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return siblings.contains { name in
            guard name != own, !name.hasPrefix("."), URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent == baseName,
                  !["-wal", "-shm", "-journal"].contains(where: { name == own + $0 }) else { return false }
            return Self.isSQLiteFile(directory.appendingPathComponent(name).path)
        }
    }

    /// Whether the file at `path` begins with SQLite's header string.
    static func isSQLiteFile(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }

    private func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
