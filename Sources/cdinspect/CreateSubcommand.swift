import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect create STORE --model MODEL`: a new, empty store. A subcommand of the
/// executable, not of a session: there is no store to open yet.
struct CreateSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new, empty store that Core Data opens with MODEL without a migration.",
        discussion: """
            The store is laid out as Core Data lays one out for MODEL (an .xcdatamodeld, .xcdatamodel or \
            contents file): a table per root entity with Z_PK, Z_ENT, Z_OPT and a column per stored property, \
            key columns and their indexes, join tables, Z_PRIMARYKEY, Z_METADATA with the entity version \
            hashes Core Data computes for the model, and Z_MODELCACHE; in WAL mode. With --history, the \
            persistent history tables an app with NSPersistentHistoryTrackingKey has. Refused when STORE \
            exists, or when a version hash cannot be computed from the model (Core Data would migrate).
            """)

    @Argument(help: ArgumentHelp("The new store's file.", valueName: "store"), completion: .file())
    var store: String
    @Option(name: .long, help: ArgumentHelp("The model: an .xcdatamodeld, .xcdatamodel or contents file.", valueName: "model"),
            completion: .file())
    var model: String
    @Flag(name: .long, help: "Create the persistent history tables too (NSPersistentHistoryTrackingKey).")
    var history = false

    func run() throws {
        try Diagnostics.reporting {
            guard access(store, F_OK) != 0 else { throw CommandError.failed("\(store) exists: create makes a new store and never overwrites one") }
            let model: ManagedObjectModel
            do { model = try XcdatamodelReader.model(atPath: self.model) } catch { throw StoreError.invalidModel("\(error)") }
            var options = StoreCreator.Options()
            options.persistentHistory = history
            options.requiresComputedHashes = true
            do {
                try StoreCreator.create(at: store, model: model, options: options)
            } catch {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
                throw error
            }
            // The store is whole under its name now: reading it back for the line below is no
            // part of the create, and a failure there (a full disk under its -shm) is a warning.
            let sink = Terminal.standardOutput()
            do {
                let created = try PersistentStore(path: store, options: .init(readonly: true))
                defer { created.close() }
                sink.line("created \(store): \(model.entities.count) entities, store UUID \(created.uuid)")
            } catch {
                sink.line("created \(store): \(model.entities.count) entities")
                Diagnostics.warning("the new store could not be read back to show its UUID: \(error)")
            }
            let derived = StoreCreator.derivedAttributesWithoutTriggers(model)
            if !derived.isEmpty {
                Diagnostics.warning("derived attributes (\(derived.joined(separator: ", "))) have no triggers in the new store: "
                                    + "Core Data writes them when it creates the store; cdinspect writes them only for a count of a to-many")
            }
            sink.flush()
        }
    }
}
