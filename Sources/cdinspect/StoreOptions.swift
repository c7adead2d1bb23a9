import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// Where the store is and how to open it: what every form of the command accepts.
struct StoreLocation: ParsableArguments {
    @Argument(help: "The store: a Core Data .sqlite file (its -wal beside it), any SQLite file, or an app's bundle identifier or name (see 'cdinspect stores').")
    var store: String

    @Flag(name: .long, help: "Refuse every command that would write to the store.")
    var readonly = false

    @Flag(name: .long, help: "Open the store as evidence: no file is created or changed beside it (no -shm, no lock), the -wal's commits read in place. Implies --readonly.")
    var immutable = false

    @Option(name: .long, help: ArgumentHelp("Read a past generation the store's files hold (w0 the main file, w1… each commit of the -wal; see 'generations'), in place. Implies --readonly.", valueName: "token"))
    var generation: String?

    // No default value in the declaration: the parser describes a default for help by
    // casting it to protocols at run time, each cast a walk over every conformance in the
    // binary on every start (three for an Int), though help is rarely asked for.
    @Option(name: .long, help: "Core Data SQL debug level, 0 (the default: none) to 4, on stderr (also -com.apple.CoreData.SQLDebug N).")
    var sqlDebug: Int?

    /// The level asked for; 0 logs nothing.
    var sqlDebugLevel: Int { sqlDebug ?? 0 }

    func validate() throws {
        guard (0...4).contains(sqlDebugLevel) else { throw ValidationError("--sql-debug takes a level from 0 to 4") }
    }

    /// Seconds to wait for another process's lock: 2, or `CDINSPECT_BUSY_TIMEOUT` (the
    /// tests shorten it).
    static var busyTimeout: TimeInterval {
        ProcessEnvironment.value("CDINSPECT_BUSY_TIMEOUT").flatMap(Double.init) ?? 2
    }

    /// Opens the store, with a debug log on stderr when one is asked for, and always for a
    /// session, where `sqldebug N` can turn it on later.
    /// `onlyReads`: for a command that never writes, a store no process has open is read in
    /// place (`PersistentStore.Options.readsInPlaceWhenClosed`), creating nothing beside it.
    func openStore(session: Bool = false, modelPath: String? = nil, onlyReads: Bool = false) throws -> PersistentStore {
        let log = session || sqlDebugLevel > 0 ? SQLDebugLog(level: sqlDebugLevel, sink: Diagnostics.log) : nil
        var options = PersistentStore.Options(modelPath: modelPath, readonly: readonly, immutable: immutable, generation: generation,
                                              busyTimeout: Self.busyTimeout, log: log)
        options.readsInPlaceWhenClosed = onlyReads
        return try PersistentStore(path: try StoreSearch.resolve(store), options: options)
    }
}

/// Options every form of the command accepts: the store, and the model to read it with.
/// (`doctor` takes `--model` as the next model version instead, so its one-shot form has
/// the location alone.)
struct StoreOptions: ParsableArguments {
    @OptionGroup var location: StoreLocation

    @Option(name: .long, help: "An .xcdatamodeld, .xcdatamodel or contents file to use as the model.")
    var model: String?

    func openStore(session: Bool = false, onlyReads: Bool = false) throws -> PersistentStore {
        try location.openStore(session: session, modelPath: model, onlyReads: onlyReads)
    }
}

/// How a one-shot command opens its store.
protocol StoreOpening: ParsableArguments {
    func openStore(session: Bool, onlyReads: Bool) throws -> PersistentStore
}

extension StoreOptions: StoreOpening {}
extension StoreLocation: StoreOpening {
    func openStore(session: Bool, onlyReads: Bool) throws -> PersistentStore { try openStore(session: session, modelPath: nil, onlyReads: onlyReads) }
}
