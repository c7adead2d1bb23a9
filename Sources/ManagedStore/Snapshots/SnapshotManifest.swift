import Foundation

/// `manifest.json`, beside a snapshot's store: what was copied, from where and when, and
/// what a restore or a later look checks against (the model version hashes, the counts).
/// Written sorted and indented, so that a person or a diff tool can read it.
public struct SnapshotManifest: Codable, Sendable, Equatable {
    /// The manifest's own format; a later cdinspect reads older ones.
    public var format = 1
    public var name: String
    /// The store's absolute path when the snapshot was taken.
    public var source: String
    /// The store's file name, which the snapshot's copy keeps.
    public var storeFile: String
    /// `Z_METADATA.Z_UUID`: the store a snapshot belongs to, whatever path it had.
    public var storeUUID: String
    /// When it was taken, ISO 8601 in UTC.
    public var time: String
    /// `NSStoreModelVersionHashes` as the store's metadata holds them, base64 per entity: a
    /// restore refuses a snapshot whose model is not the store's.
    public var modelVersionHashes: [String: String]
    /// Objects per entity, not counting its sub-entities' (so that they add up).
    public var entityCounts: [String: Int]
    /// SQLite's `quick_check` of the copy: "ok", or what it found.
    public var integrityCheck: String
    /// The store's journal mode when copied (the copy itself is one file, in rollback mode).
    public var journalMode: String
    /// Files copied from the external data folder (`.<store>_SUPPORT/_EXTERNAL_DATA`).
    public var externalDataFiles: Int
    /// The CloudKit asset folders copied (`<store>_ckAssets`), by name.
    public var cloudKitAssetFolders: [String]

    public static let fileName = "manifest.json"

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// The manifest of the snapshot in `folder`; a folder without one is no snapshot.
    public static func read(in folder: URL) throws -> SnapshotManifest {
        let url = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw SnapshotError.notASnapshot(path: folder.path) }
        do {
            return try JSONDecoder().decode(SnapshotManifest.self, from: data)
        } catch {
            throw SnapshotError.damagedManifest(path: url.path, detail: "\(error)")
        }
    }
}
