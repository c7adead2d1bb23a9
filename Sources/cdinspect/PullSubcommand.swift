import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect pull --device D --app B`: an app's store copied off a connected device and
/// kept as a snapshot. A subcommand of the executable: the store is not here yet.
struct PullSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Copy an app's store off a connected device (macOS, Xcode 15+) and keep it as a snapshot.",
        discussion: """
            The store, its -wal and -shm, and its external data folder (.<store>_SUPPORT) are copied out of the \
            app's data container with 'xcrun devicectl device copy from --domain-type appDataContainer' into a \
            work folder, and a snapshot is taken of that copy (SQLite's backup API, as 'snapshot' takes one): \
            kept in the snapshot library under the store's UUID (named pull-TIME unless NAME is given), or with \
            --to in DIR. The next pull of the same app's store is kept beside it, so 'cdinspect diff' compares \
            two pulls (name the first, give the second's folder), and 'snapshots' lists them. Without --store \
            the container's files are listed ('devicectl device info files') and the one .sqlite or .store \
            file in it is taken (SwiftData's Library/Application Support/default.store when the listing names \
            none); with several, --store names the one (a path inside the container, such as \
            'Library/Application Support/default.store'). The work folder is removed afterwards.
            """)

    @Option(name: .long, help: ArgumentHelp("The device: its name or UDID, as 'xcrun devicectl list devices' shows it.", valueName: "name|udid"))
    var device: String
    @Option(name: .long, help: ArgumentHelp("The app's bundle identifier.", valueName: "bundle-id"))
    var app: String
    @Option(name: .long, help: ArgumentHelp("The store's path inside the app's container (default: the one store the container holds).",
                                            valueName: "path"))
    var store: String?
    @Argument(help: ArgumentHelp("The snapshot's name (default: pull-TIME).", valueName: "name"))
    var name: String?
    @Option(name: .customLong("to"), help: ArgumentHelp("Keep the snapshot in this folder (new or empty) instead of the library.", valueName: "dir"),
            completion: .directory)
    var folder: String?

    func run() throws {
        Interrupts.install()
        try Diagnostics.reporting {
            let name = self.name ?? "pull-" + StoreSnapshot.defaultName()
            try StoreSnapshot.checkName(name)
            let container = DeviceContainer(device: device, app: app)
            let staging = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-pull-\(getpid())-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: staging) }

            let source = try store ?? onlyStore(in: container, staging: staging)
            let file = (source as NSString).lastPathComponent
            let local = staging.appendingPathComponent(file)
            try container.copy(source, to: local)
            guard FileManager.default.fileExists(atPath: local.path) else {
                throw CommandError.failed("xcrun devicectl copied nothing for \(source) of \(app) on \(device)")
            }
            // The sidecars and the external data are there only when the app has them.
            for suffix in ["-wal", "-shm"] { try? container.copy(source + suffix, to: URL(fileURLWithPath: local.path + suffix)) }
            let directory = (source as NSString).deletingLastPathComponent
            let support = ".\((file as NSString).deletingPathExtension)_SUPPORT"
            let supportSource = directory.isEmpty ? support : directory + "/" + support
            try? container.copy(supportSource, to: staging.appendingPathComponent(support))

            let pulled = try PersistentStore(path: local.path, options: .init(readonly: true))
            defer { pulled.close() }
            let target: URL
            if let folder { target = URL(fileURLWithPath: folder, isDirectory: true) } else {
                target = try SnapshotLibrary.newFolder(of: pulled, name: name)
            }
            // Files copied one by one off a device can tear: a pulled copy is always checked.
            let snapshot = try StoreSnapshot.take(of: pulled, name: name, into: target, check: true)
            let objects = snapshot.manifest.entityCounts.values.reduce(0, +)
            let sink = Terminal.standardOutput()
            sink.line("pulled \(source) of \(app) from \(device): snapshot \(snapshot.name), \(objects) object(s), "
                      + "quick_check \(snapshot.manifest.check)")
            sink.line("  in \(snapshot.folder.path)")
            sink.flush()
        }
    }

    private func onlyStore(in container: DeviceContainer, staging: URL) throws -> String {
        let found = container.storePaths(staging: staging)
        switch found.count {
        case 1: return found[0]
        case 0: return "Library/Application Support/default.store"
        default:
            throw CommandError.usage("\(app)'s container holds \(found.count) stores (\(found.joined(separator: ", "))): name one with --store")
        }
    }
}
