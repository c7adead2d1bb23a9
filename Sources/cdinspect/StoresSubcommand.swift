import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect stores [DIR…]`: the Core Data stores under folders, newest first.
struct StoresSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "Find Core Data stores: the simulator's app containers by default, or under the folders given.",
        discussion: """
            Lists each store with its app's bundle identifier (from its container's metadata), the simulator \
            device and runtime, its path, size (with its -wal), last change, entity count, journal mode, and \
            whether it keeps persistent history or is mirrored to CloudKit; newest first. Nothing is opened for \
            writing and no -wal or -shm is created. Without DIR it searches $CDINSPECT_SIMULATOR_ROOT, else \
            ~/Library/Developer/CoreSimulator/Devices on macOS. A STORE argument elsewhere may be an app's \
            bundle identifier or name when exactly one store of that app is found here.
            """)

    @Argument(help: ArgumentHelp("Folders (or files) to search.", valueName: "dir"))
    var folders: [String] = []
    @Option(name: .long, help: ArgumentHelp("Only stores of this app: its bundle identifier or name.", valueName: "id-or-name"))
    var app: String?
    @OptionGroup var output: FormatOption

    func run() throws {
        try Diagnostics.reporting {
            guard let roots = folders.isEmpty ? StoreSearch.defaultRoots : folders else { throw StoreSearchError.noRoot }
            var finder = StoreFinder()
            let progress = ProgressLine()
            if progress.isShown {
                finder.progress = { folders, stores in progress.show("searching: \(folders) folders, \(stores) stores") }
            }
            var stores = finder.find(in: roots)
            progress.clear()
            if !finder.unreadable.isEmpty {
                let shown = finder.unreadable.prefix(3).joined(separator: ", ")
                Diagnostics.warning("\(finder.unreadable.count) folder\(finder.unreadable.count == 1 ? "" : "s") could not be read: \(shown)"
                                    + (finder.unreadable.count > 3 ? ", …" : ""))
            }
            if let app { stores = stores.filter { $0.belongs(to: app) } }
            let sink = Terminal.standardOutput()
            let writer = output.results(to: sink)
                .rows(["app", "device", "runtime", "path", "size", "modified", "entities", "journalMode", "history", "cloudKit"])
            for s in stores {
                writer.row([s.bundleID.map(OutputValue.string) ?? .null, s.deviceName.map(OutputValue.string) ?? .null,
                            s.runtime.map(OutputValue.string) ?? .null, .string(s.path), .integer(s.size),
                            .date(s.modified.timeIntervalSinceReferenceDate), s.entityCount.map { .integer(Int64($0)) } ?? .null,
                            .string(s.journalMode), .bool(s.hasHistory), .bool(s.isMirrored)])
            }
            writer.finish()
            sink.flush()
        }
    }
}
