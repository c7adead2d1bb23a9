import ArgumentParser
import Foundation
import ManagedStore

public struct SnapshotCommand: SessionCommand {
    public static let traits = CommandTraits(group: .beforeAndAfter)

    public static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Keep a consistent copy of the store, to compare with or to restore later.",
        discussion: """
            The copy is taken while an app may be writing: the rows through SQLite's backup API in one read \
            transaction (never a copy of the files of a live -wal store), with the external data folder \
            (.<store>_SUPPORT/_EXTERNAL_DATA) and any CloudKit asset folder (<store>_ckAssets), and a \
            manifest.json (source, store UUID, time, model version hashes, object counts, and "check": "not run", \
            or with --check what SQLite's quick_check found in the copy). The copy is as sound as the store it was \
            taken from, since the backup API copies its pages in one read transaction; 'restore' checks a snapshot \
            before it puts it back. The copy is a plain store, one file in rollback mode, that every command opens. \
            When the store's -wal holds saves, its main file and -wal are also copied as they are into past/ in \
            the same read transaction, so that 'generations' and --generation read those saves there after a \
            write has folded them away (the manifest's pastGenerations says how many). \
            Without --to it is kept under $XDG_DATA_HOME/cdinspect/snapshots/STORE-UUID/NAME \
            (~/.local/share/… without XDG_DATA_HOME), where 'snapshots' lists it and 'restore' and 'diff' \
            find it by name. NAME defaults to the time (2026-11-27T20-31-05Z), or with --to to the folder's \
            name; a snapshot written with --to is named by its folder, and 'snapshots' does not list it.
            """)

    @Argument(help: ArgumentHelp("The snapshot's name: letters, digits, '.', '-' and '_' (default: the time).", valueName: "name"))
    public var name: String?

    @Option(name: .customLong("to"), help: ArgumentHelp("Write it into this folder (new or empty) instead of the library.", valueName: "dir"),
            completion: .directory)
    public var folder: String?

    @Flag(name: .long, help: "Run SQLite's quick_check on the copy and record what it found (ok, or the problems).")
    public var check = false

    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        // With --to and no NAME, the snapshot is named after its folder (`--to before` is
        // `before`), the name restore and diff then print, not the time.
        let folderName = self.folder.map { URL(fileURLWithPath: $0).lastPathComponent }.flatMap { (try? StoreSnapshot.checkName($0)) != nil ? $0 : nil }
        let name = self.name ?? folderName ?? StoreSnapshot.defaultName()
        try StoreSnapshot.checkName(name)
        let folder: URL
        if let path = self.folder {
            folder = URL(fileURLWithPath: path, isDirectory: true)
        } else {
            folder = StoreSnapshot.folder(root: SnapshotLibrary.root, storeUUID: try SnapshotLibrary.uuid(of: store), name: name)
            if FileManager.default.fileExists(atPath: folder.path) { throw SnapshotError.nameTaken(name: name, path: folder.path) }
        }
        let snapshot = try StoreSnapshot.take(of: store, name: name, into: folder, check: check)
        let m = snapshot.manifest
        session.results(output).report(Report(value: { SnapshotLibrary.value(snapshot) }, people: {
            let objects = m.entityCounts.values.reduce(0, +)
            let checked = m.check == SnapshotManifest.notChecked ? "" : ", quick_check \(m.check)"
            var parts: [ReportPart] = [.line("snapshot \(m.name) of \(store.path): \(objects) object(s) in \(m.entityCounts.count) entities"
                                              + checked),
                                       .line("  in \(snapshot.folder.path)")]
            if m.externalDataFiles > 0 { parts.append(.line("  with \(m.externalDataFiles) external data file(s)")) }
            if self.folder != nil {
                parts.append(.line("  outside the library: 'snapshots' does not list it; name it by its folder (restore \(store.path) \(snapshot.folder.path))"))
            }
            for folder in m.cloudKitAssetFolders { parts.append(.line("  with the CloudKit assets of \(folder)")) }
            return parts
        }, csv: { [.rows(SnapshotLibrary.columns, [SnapshotLibrary.row(snapshot)])] }))
        if check, m.check != "ok" { session.warn("SQLite's quick_check of the copy found: \(m.check)") }
    }
}
