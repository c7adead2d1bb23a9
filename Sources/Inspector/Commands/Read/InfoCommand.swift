import ArgumentParser
import ManagedStore

public struct InfoCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the store's metadata: UUID, type, framework version, journal mode, WAL size, model source.")

    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let metadata = store.metadata
        var pairs: [(String, OutputValue)] = [
            ("path", .string(store.path)),
            ("uuid", metadata.map { .string($0.uuid) } ?? .null),
            ("type", .string(store.isCoreDataStore ? (metadata?.storeType ?? "SQLite") : "SQLite (not a Core Data store)")),
            ("frameworkVersion", metadata?.frameworkVersion.map { .integer($0) } ?? .null),
            ("journalMode", .string(store.file.journalMode == .wal ? "wal" : "rollback")),
            ("walSize", store.file.walSize.map { .integer(Int64($0)) } ?? .null),
            // The past generation read, when one was asked for.
            ("generation", store.options.generation.map { .string($0) } ?? .null),
            ("fileSize", .integer(Int64(store.file.size))),
            ("pageSize", .integer(Int64(store.file.pageSize))),
            ("model", .string(store.model.source.description)),
            ("entities", .integer(Int64(store.model.entities.count))),
            ("persistentHistory", .bool(store.schema.hasPersistentHistory)),
            ("cloudKitMirroring", .bool(store.schema.table("ANSCKRECORDMETADATA") != nil)),
        ]
        // Whether Core Data would open the store with this model without a migration.
        if let metadata, !metadata.versionHashes.isEmpty {
            let comparisons = EntityHashComparison.compare(store.model, with: metadata)
            pairs.append(("modelMatchesMetadata", .bool(EntityHashComparison.opensWithoutMigration(comparisons))))
        }
        // The span of history an app's token can name: `history --after TOKEN` reads past it.
        if let history = try? PersistentHistory(store: store), let summary = try? store.read(history.summary) {
            pairs += [("historyTransactions", .integer(summary.transactions)),
                      ("historyFirstToken", summary.firstToken.map(OutputValue.integer) ?? .null),
                      ("historyLastToken", summary.lastToken.map(OutputValue.integer) ?? .null)]
        }
        if let metadata {
            let known: Set<String> = ["NSStoreType", "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashes",
                                      "NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey"]
            for (key, value) in metadata.plist where !known.contains(key) {
                pairs.append(("metadata." + key, OutputValue(plist: value)))
            }
        }
        session.results(output).record(pairs)
    }
}

extension OutputValue {
    init(plist: PropertyListValue) {
        switch plist {
        case .null, .uid: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .date(let d): self = .date(d)
        case .data(let bytes): self = .data(bytes)
        case .string(let s): self = .string(s)
        case .array(let items): self = .array(items.map(OutputValue.init(plist:)))
        case .dictionary(let pairs):
            self = .object(pairs.map { ($0.key.stringValue ?? "?", OutputValue(plist: $0.value)) })
        }
    }
}

extension InfoCommand {
    static let tool = ToolDeclaration(
        title: "Store metadata", description: "The store's metadata: path, UUID, store type, journal mode, sizes, model source, history span.",
        answer: .object([("path", .string), ("uuid", .nullable(.string)), ("type", .nullable(.string)), ("journalMode", .string), ("fileSize", .integer), ("model", .string), ("entities", .integer), ("persistentHistory", .boolean), ("cloudKitMirroring", .boolean)], required: ["path", "journalMode", "entities"])
    ) { _ in try InfoCommand.parse([]) }
}
