import Foundation

/// The model a migration reads the store with. A store holds the model it was written with
/// in `Z_MODELCACHE` since Core Data wrote that table; an older one holds none (in the stores
/// at hand, every one of frameworks 419, 479 and 519 has none, hwaxxer's and Apptentive's,
/// and every one of 640 and later has it, Wire's, Apptentive's of 754). For such a store
/// Core Data takes the source model from the app's own versions, the one whose entity version
/// hashes are the store's metadata's (`mergedModelFromBundles:forStoreMetadata:`), and so does
/// `migrate`: among the versions beside the new model. Without it, a store's columns give
/// only upper-case guesses of property names (`ZAPPTENTIVEID`: `apptentiveid`) and storage
/// classes for types, and a mapping by those names would take every renamed-looking property
/// for a new one and drop its values.
public enum SourceModel {
    /// Whether the store's model is a reading of its columns (no model cache, or one that
    /// does not decode), not a model Core Data wrote.
    public static func isGuessed(_ store: PersistentStore) -> Bool {
        switch store.model.source {
        case .schema, .schemaAfterUnreadableCache: return true
        case .modelCache, .modelFile, .plainSQLite: return false
        }
    }

    /// The model versions of the bundle that holds `modelPath` (an `.xcdatamodeld`, one of its
    /// versions, or a version's `contents`), each an `.xcdatamodel` path, by name; just the
    /// model itself when it is in no bundle.
    public static func versions(besides modelPath: String) -> [String] {
        var url = URL(fileURLWithPath: modelPath).standardizedFileURL
        if url.lastPathComponent == "contents" { url.deleteLastPathComponent() }
        let bundle = url.pathExtension == "xcdatamodeld" ? url
            : url.deletingLastPathComponent().pathExtension == "xcdatamodeld" ? url.deletingLastPathComponent() : nil
        guard let bundle, let names = try? FileManager.default.contentsOfDirectory(atPath: bundle.path) else { return [url.path] }
        return names.filter { $0.hasSuffix(".xcdatamodel") }.sorted().map { bundle.appendingPathComponent($0).path }
    }

    /// The first of `paths` whose model has the store's version hashes, every entity's.
    public static func matching(_ metadata: StoreMetadata?, among paths: [String]) -> String? {
        guard let metadata, !metadata.versionHashes.isEmpty else { return nil }
        return paths.first { path in
            guard let model = try? XcdatamodelReader.model(atPath: path) else { return false }
            return EntityHashComparison.opensWithoutMigration(EntityHashComparison.compare(model, with: metadata))
        }
    }

    /// The store opened again with the model file at `path`, which must be the model it was
    /// written with: every entity's version hash the store's (when it records them).
    public static func reopened(_ store: PersistentStore, withModel path: String) throws -> PersistentStore {
        var options = store.options
        options.modelPath = path
        let opened = try PersistentStore(path: store.path, options: options)
        let differing = mismatches(opened.model, opened.metadata)
        guard differing.isEmpty else { throw MigrationError.sourceModelMismatch(entities: differing) }
        return opened
    }

    /// For a store that holds no model of its own, the store opened with the version beside
    /// `modelPath` that has its hashes, and that version's path; nil otherwise.
    public static func reopenedWithFoundVersion(_ store: PersistentStore, besides modelPath: String) throws -> (store: PersistentStore, path: String)? {
        guard isGuessed(store), let found = matching(store.metadata, among: versions(besides: modelPath)) else { return nil }
        return (try reopened(store, withModel: found), found)
    }

    /// The entities whose version hashes in `model` are not the store's: empty when Core Data
    /// would open the store with it (or the store records none to compare).
    public static func mismatches(_ model: ManagedObjectModel, _ metadata: StoreMetadata?) -> [String] {
        guard let metadata, !metadata.versionHashes.isEmpty else { return [] }
        return EntityHashComparison.compare(model, with: metadata).filter { !$0.matches }.map(\.entity)
    }
}
