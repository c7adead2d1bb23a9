import Foundation
import ManagedStore

/// `export`'s JSON document, written as the objects come: `{"format": 1, "storeUUID",
/// "versionHashes", "entities": [{"entity", "objects": […]}]}`, each object as fetch --format
/// json prints it (the object ID first). `import` reads it back; `export` and `recover
/// --export` write it.
final class ExportDocument {
    private let sink: OutputSink
    private var entities = 0
    private var objects = 0
    private var leaves: Set<String> = []

    init(_ store: PersistentStore, sink: OutputSink) {
        self.sink = sink
        let hashes = (store.metadata?.versionHashes ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, OutputValue.data($0.value)) }
        sink.write("{\"format\": 1, \"storeUUID\": ")
        OutputValue.string(store.uuid).writeJSON(to: sink)
        sink.write(", \"versionHashes\": ")
        OutputValue.object(hashes).writeJSON(to: sink)
        sink.write(", \"entities\": [")
    }

    /// Starts an entity's objects (an entity may come more than once).
    func entity(_ mapping: EntityMapping) {
        if entities > 0 { sink.write(objects == 0 ? "]}," : "\n  ]},") }
        sink.write("\n  {\"entity\": ")
        OutputValue.string(mapping.name).writeJSON(to: sink)
        sink.write(", \"objects\": [")
        entities += 1
        objects = 0
        leaves = Set(mapping.attributes.map(\.attribute.name).filter { $0.contains(".") })
    }

    func object(_ object: StoreDiff.Object) {
        self.object(object.objectID, values: object.values)
    }

    /// An object, with its object ID where it has one (an import inserts one without under a new key).
    func object(_ objectID: ObjectID?, values: [(key: String, value: ObjectValue)]) {
        sink.write(objects == 0 ? "\n    " : ",\n    ")
        objects += 1
        var pairs: [(String, OutputValue)] = objectID.map { [("objectID", .objectID($0.uri))] } ?? []
        for (key, value) in values { pairs.append((key, ExportCommand.exported(value))) }
        OutputValue.nesting(pairs, leaves: leaves).writeJSON(to: sink)
    }

    func finish() {
        if entities > 0 { sink.write(objects == 0 ? "]}\n" : "\n  ]}\n") }
        sink.write("]}\n")
        sink.flush()
    }

    /// Writes a document into `file` through a hidden file beside it, moved into place when
    /// whole: a failure leaves no half document under the name.
    static func write(to file: String, _ body: (OutputSink) throws -> Void) throws {
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
            try body(sink)
            sink.flush()
            try handle.close()
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: partial, to: target)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
    }
}
