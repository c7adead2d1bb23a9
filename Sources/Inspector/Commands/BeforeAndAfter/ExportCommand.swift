import ArgumentParser
import Foundation
import ManagedStore

public struct ExportCommand: SessionCommand {
    public static let traits = CommandTraits(group: .beforeAndAfter, firstArgumentIsEntity: true)

    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store's objects (or some entities' and those they reach) as one JSON document.",
        discussion: """
            The document: {"format": 1, "storeUUID", "versionHashes", "entities": [{"entity", "objects": \
            [...]}]}. Each concrete entity's own objects, in primary key order, as fetch --format json prints \
            them (the object ID first, composites nested), with every relationship: a to-one as an object ID, a \
            to-many as an array of them (an ordered one in its order). Binary data and externally stored data \
            are inline (base64), a transformable as its archived bytes (base64, as fetch --raw), so that an \
            import gives the same values back. With ENTITY…, those entities and every entity their \
            relationships reach, with their sub-entities. Written as it is read, entity by entity; with --to, \
            into a hidden file beside FILE moved into place when whole.
            """)

    @Argument(help: "Only these entities, and the entities their relationships reach.", completion: EntityCompletion.kind)
    public var entities: [String] = []

    @Option(name: .customLong("to"), help: ArgumentHelp("Write the document into this file instead of standard output.", valueName: "file"),
            completion: .file())
    public var file: String?

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let export = try StoreExport(store, entities: entities)
        guard let file else { return try Self.write(export, to: session.output) }
        let target = URL(fileURLWithPath: file)
        let partial = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).cdinspect-partial-\(getpid())")
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target.deletingLastPathComponent().path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandError.failed("cannot write \(file): there is no folder \(target.deletingLastPathComponent().path)")
        }
        guard FileManager.default.createFile(atPath: partial.path, contents: nil), let handle = FileHandle(forWritingAtPath: partial.path) else {
            throw CommandError.failed("cannot write \(file): permission denied")
        }
        do {
            let sink = OutputSink(handle: handle)
            try Self.write(export, to: sink)
            sink.flush()
            try handle.close()
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: partial, to: target)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        session.note("exported \(export.entities.count) entities of \(store.path) to \(file)")
    }

    /// A value as fetch --format json prints it, except a date whose ISO 8601 text (to the
    /// millisecond) would not read back to the same moment: that one is its seconds since
    /// 2001, so that an import stores the very value exported.
    static func exported(_ value: ObjectValue) -> OutputValue {
        if case .attribute(.date(let seconds)) = value, !ImportDates.readsBack(seconds, OutputValue.isoDate(seconds)) {
            return .real(seconds)
        }
        return OutputValue(value, rawArchives: true)
    }

    /// The document, written as the objects are read.
    static func write(_ export: StoreExport, to sink: OutputSink) throws {
        let store = export.store
        let hashes = (store.metadata?.versionHashes ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, OutputValue.data($0.value)) }
        sink.write("{\"format\": 1, \"storeUUID\": ")
        OutputValue.string(store.uuid).writeJSON(to: sink)
        sink.write(", \"versionHashes\": ")
        OutputValue.object(hashes).writeJSON(to: sink)
        sink.write(", \"entities\": [")
        var entities = 0
        var objects = 0
        var leaves: Set<String> = []
        try export.run(entity: { mapping in
            if entities > 0 { sink.write(objects == 0 ? "]}," : "\n  ]},") }
            sink.write("\n  {\"entity\": ")
            OutputValue.string(mapping.name).writeJSON(to: sink)
            sink.write(", \"objects\": [")
            entities += 1
            objects = 0
            leaves = Set(mapping.attributes.map(\.attribute.name).filter { $0.contains(".") })
        }, object: { object in
            sink.write(objects == 0 ? "\n    " : ",\n    ")
            objects += 1
            var pairs: [(String, OutputValue)] = [("objectID", .objectID(object.objectID.uri))]
            for (key, value) in object.values { pairs.append((key, exported(value))) }
            OutputValue.nesting(pairs, leaves: leaves).writeJSON(to: sink)
        })
        if entities > 0 { sink.write(objects == 0 ? "]}\n" : "\n  ]}\n") }
        sink.write("]}\n")
        sink.flush()
    }
}
