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

    private func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
