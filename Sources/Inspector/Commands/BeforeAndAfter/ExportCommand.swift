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
        try ExportDocument.write(to: file) { sink in try Self.write(export, to: sink) }
        session.note("exported \(export.entities.count) entities of \(store.path) to \(file)")
    }

    /// A value as fetch --format json prints it, except a date whose ISO 8601 text (to the
    /// millisecond) would not read back to the same moment: that one is its seconds since
    /// 2001, so that an import stores the very value exported.
    static func exported(_ value: ObjectValue) -> OutputValue {
        // A whole number of seconds in the years 1 to 9900, which ISO 8601 text writes with four
        // digits, reads back exactly; only other values are written out and parsed to see.
        if case .attribute(.date(let seconds)) = value, !(seconds.rounded() == seconds && seconds > -6e10 && seconds < 2.5e11),
           !ImportDates.readsBack(seconds, OutputValue.isoDate(seconds)) {
            return .real(seconds)
        }
        return OutputValue(value, rawArchives: true)
    }

    /// The document, written as the objects are read.
    static func write(_ export: StoreExport, to sink: OutputSink) throws {
        let document = ExportDocument(export.store, sink: sink)
        try export.run(entity: { document.entity($0) }, object: { document.object($0) })
        document.finish()
    }
}
