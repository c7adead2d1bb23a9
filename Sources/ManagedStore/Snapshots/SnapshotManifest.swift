import Foundation

/// `manifest.json`, beside a snapshot's store: what was copied, from where and when, and
/// what a restore or a later look checks against (the model version hashes, the counts).
/// Written sorted and indented, so that a person or a diff tool can read it.
public struct SnapshotManifest: Codable, Sendable, Equatable {
    /// The manifest's own format; a later cdinspect reads older ones (format 1 named the
    /// check `integrityCheck` and always ran it).
    public var format = 2
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
    /// SQLite's `quick_check` of the copy: "ok", what it found, or `SnapshotManifest.notChecked`
    /// (a snapshot is not checked unless asked: the backup API copies pages in one read
    /// transaction, so the copy is as sound as its store, and a restore checks it anyway).
    public var check: String
    /// The store's journal mode when copied (the copy itself is one file, in rollback mode).
    public var journalMode: String
    /// Files copied from the external data folder (`.<store>_SUPPORT/_EXTERNAL_DATA`).
    public var externalDataFiles: Int
    /// The CloudKit asset folders copied (`<store>_ckAssets`), by name.
    public var cloudKitAssetFolders: [String]
    /// Commits of the store's `-wal` kept as they were in the snapshot's `past/` folder
    /// (`PastFiles`), readable there with `generations` and `--generation`; 0 when none.
    public var pastGenerations = 0

    public static let fileName = "manifest.json"
    /// `check` of a snapshot taken without `quick_check`.
    public static let notChecked = "not run"

    public init(name: String, source: String, storeFile: String, storeUUID: String, time: String,
                modelVersionHashes: [String: String], entityCounts: [String: Int], check: String, journalMode: String,
                externalDataFiles: Int, cloudKitAssetFolders: [String], pastGenerations: Int = 0) {
        (self.name, self.source, self.storeFile, self.storeUUID, self.time) = (name, source, storeFile, storeUUID, time)
        (self.modelVersionHashes, self.entityCounts, self.check, self.journalMode) = (modelVersionHashes, entityCounts, check, journalMode)
        (self.externalDataFiles, self.cloudKitAssetFolders) = (externalDataFiles, cloudKitAssetFolders)
        self.pastGenerations = pastGenerations
    }

    private enum CodingKeys: String, CodingKey {
        case format, name, source, storeFile, storeUUID, time, modelVersionHashes, entityCounts, check, journalMode
        case externalDataFiles, cloudKitAssetFolders, pastGenerations
        case integrityCheck  // format 1
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(Int.self, forKey: .format)
        name = try c.decode(String.self, forKey: .name)
        source = try c.decode(String.self, forKey: .source)
        storeFile = try c.decode(String.self, forKey: .storeFile)
        storeUUID = try c.decode(String.self, forKey: .storeUUID)
        time = try c.decode(String.self, forKey: .time)
        modelVersionHashes = try c.decode([String: String].self, forKey: .modelVersionHashes)
        entityCounts = try c.decode([String: Int].self, forKey: .entityCounts)
        check = try c.decodeIfPresent(String.self, forKey: .check) ?? c.decode(String.self, forKey: .integrityCheck)
        journalMode = try c.decode(String.self, forKey: .journalMode)
        externalDataFiles = try c.decode(Int.self, forKey: .externalDataFiles)
        cloudKitAssetFolders = try c.decode([String].self, forKey: .cloudKitAssetFolders)
        pastGenerations = try c.decodeIfPresent(Int.self, forKey: .pastGenerations) ?? 0
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(name, forKey: .name)
        try c.encode(source, forKey: .source)
        try c.encode(storeFile, forKey: .storeFile)
        try c.encode(storeUUID, forKey: .storeUUID)
        try c.encode(time, forKey: .time)
        try c.encode(modelVersionHashes, forKey: .modelVersionHashes)
        try c.encode(entityCounts, forKey: .entityCounts)
        try c.encode(check, forKey: .check)
        try c.encode(journalMode, forKey: .journalMode)
        try c.encode(externalDataFiles, forKey: .externalDataFiles)
        try c.encode(cloudKitAssetFolders, forKey: .cloudKitAssetFolders)
        if pastGenerations > 0 { try c.encode(pastGenerations, forKey: .pastGenerations) }
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// Whether `path` is a snapshot's folder: a directory holding a manifest.
    public static func isSnapshotFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
            && FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(fileName))
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
