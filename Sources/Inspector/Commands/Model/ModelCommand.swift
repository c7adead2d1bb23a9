import Foundation
import ArgumentParser
import ManagedStore

public struct ModelCommand: SessionCommand {
    public static let traits = CommandTraits(group: .model, tool: tool, views: views)

    public static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Print, export or compare the store's model; list the classes its transformables hold.",
        discussion: """
            'model' prints the model as the contents XML of an .xcdatamodel. 'model export DIR' writes it as \
            DIR/NAME.xcdatamodeld (or to DIR itself when it ends in .xcdatamodeld) with one version and \
            .xccurrentversion, ready for Xcode or --model; nothing that exists is overwritten. With --swift it writes \
            DIR/CLASS.swift per entity instead: a SwiftData @Model class with its attributes' Swift types and optionality, \
            @Attribute options (.unique, .externalStorage, .ephemeral, originalName), #Unique, #Index, composites as Codable \
            types (an enum with the raw values its rows hold as cases; a JSON element typed as its values show) and \
            @Relationship with delete rules and inverses; with --managed-object, NSManagedObject subclasses with \
            @NSManaged properties, fetchRequest() and to-many accessors, as Xcode generates them. \
            'model diff OTHER' compares the store's model (the old version) with OTHER's (the new one: another \
            store, an app's bundle identifier, an .xcdatamodeld, .xcdatamodel or contents file): entities and \
            properties added, removed, renamed (by renaming identifier), moved and changed, each with the migration \
            it needs and the rule that says so, and a verdict; it exits 0 when the models are equivalent and 1 when \
            they differ. 'model classes [ENTITY]' lists, for every transformable attribute, the classes archived in \
            its rows with the number of rows holding each: what an NSSecureUnarchiveFromDataTransformer must allow. \
            'model hashes' prints, per entity, the version hash Core Data computes from the model (the store's, or \
            --model's) beside the one the store's metadata holds, and whether they match: when every entity \
            matches, Core Data opens the store with that model as is; otherwise it must migrate.
            """)

    @Argument(help: ArgumentHelp("xml (the default), export, diff, classes or hashes.", valueName: "view"))
    public var view: String = "xml"
    @Argument(help: ArgumentHelp("For export: the folder to write to. For diff: the other store or model. For classes: an entity.", valueName: "target"))
    public var target: String?
    @Flag(name: .long, help: "For export: write Swift sources, one SwiftData @Model class per entity, instead of an .xcdatamodeld.")
    public var swift = false
    @Flag(name: .long, help: "For export: write NSManagedObject subclasses with @NSManaged properties and fetchRequest(), as Xcode generates them (implies --swift).")
    public var managedObject = false
    @Option(name: .customLong("entity"), parsing: .singleValue,
            help: ArgumentHelp("For graph: only this entity (repeatable); relationships among those drawn.", valueName: "entity"),
            completion: EntityCompletion.kind)
    public var entities: [String] = []
    // Its own --format: graph takes mermaid, dot or svg, the other views the output formats.
    @Option(name: .long, help: ArgumentHelp("Output format: table, json, csv or line; for graph, mermaid (the default), dot, svg or json (cards and both texts).", valueName: "format"))
    public var format: String?

    /// What `view` takes.
    static let views = ["xml", "export", "diff", "classes", "hashes", "graph"]

    public init() {}

    /// The output format of the views other than graph.
    var output: OutputFormat? {
        get throws { try format.map { try OutputFormat(parsing: $0) } }
    }

    public func run(in session: Session) throws {
        guard Self.views.contains(view) else { throw CommandError.usage("model shows \(Self.views.joined(separator: ", ")), not '\(view)'") }
        if (swift || managedObject) && view != "export" {
            throw CommandError.usage("--swift and --managed-object are for 'model export DIR'")
        }
        if !entities.isEmpty && view != "graph" { throw CommandError.usage("--entity is for 'model graph'") }
        if view != "graph" { _ = try output }
        switch view {
        case "graph":
            if target != nil { throw CommandError.usage("'model graph' takes no argument; name entities with --entity") }
            try graph(session: session)
        case "export":
            guard let target else { throw CommandError.usage("model export needs a folder: model export DIR") }
            try export(to: target, session: session)
        case "diff":
            guard let target else { throw CommandError.usage("model diff needs the other store or model: model diff OTHER") }
            try diff(with: target, session: session)
        case "classes":
            try classes(entity: target, session: session)
        case "hashes":
            if target != nil { throw CommandError.usage("'model hashes' takes no argument; give another model with --model") }
            try hashes(session: session)
        default:
            if target != nil { throw CommandError.usage("'model' takes no argument; did you mean 'model export \(target ?? "")'?") }
            session.output.write(ModelXMLWriter.contents(of: session.store.model))
        }
    }

    /// The model as a diagram: Mermaid's erDiagram, Graphviz's DOT, or the SVG `dot` draws.
    private func graph(session: Session) throws {
        let diagram = try ModelDiagram(session.store.model, only: entities)
        switch format ?? "mermaid" {
        case "mermaid": session.output.write(diagram.mermaid)
        case "dot": session.output.write(diagram.dot())
        case "svg": session.output.write(try Graphviz.svg(diagram.dot()))
        case "json":
            let hashes = EntityHashComparison.compare(session.store.model, with: session.store.metadata)
            session.results(format: .json).report(Report(value: { ModelGraphAnswer.value(diagram, hashes: hashes) }, people: { [] }))
        case let other: throw CommandError.usage("model graph draws mermaid, dot or svg, or gives json, not '\(other)'")
        }
        session.output.flush()
    }

    private func export(to destination: String, session: Session) throws {
        let store = session.store
        if swift || managedObject {
            let files = SwiftModelSource.files(for: store.model, style: managedObject ? .managedObject : .swiftData, store: store)
            let paths = try SwiftModelSource.write(files, to: destination)
            if store.model.source.namesAreCaseInsensitive {
                session.warn("the store has no model cache: property names in the sources are the schema's uppercase guesses")
            }
            session.output.line("wrote \(paths.count) Swift file\(paths.count == 1 ? "" : "s") to \(destination) (\(managedObject ? "NSManagedObject subclasses" : "SwiftData @Model classes"))")
            return
        }
        let name = URL(fileURLWithPath: store.path).deletingPathExtension().lastPathComponent
        let bundle = ModelExport.bundlePath(destination: destination, name: name)
        let contents = try ModelExport.write(store.model, toBundle: bundle)
        if store.model.source.namesAreCaseInsensitive {
            session.warn("the store has no model cache: property names in the export are the schema's uppercase guesses")
        }
        // Validation predicates set in code have no place in a model file: say which are left out.
        let inCode = store.model.entities.flatMap { entity in
            entity.properties.compactMap { property -> String? in
                guard case .attribute(let a) = property, a.validationRules.contains(where: { !$0.isModelEditorRule }) else { return nil }
                return "\(entity.name).\(a.name)"
            }
        }
        if !inCode.isEmpty {
            session.warn("validation rules set in code are not written (a model file holds only the minimum, maximum and pattern): \(inCode.joined(separator: ", "))")
        }
        session.output.line("wrote \(bundle) (\(store.model.entities.count) entities; \(contents))")
    }

    private func diff(with other: String, session: Session) throws {
        let newModel = try Self.model(of: other)
        let diff = ModelDiff(from: try Self.storeModel(session, besides: other), to: newModel)
        let columns = ["entity", "property", "change", "detail", "migration", "rule"]
        func values(_ c: ModelDiff.Change) -> [OutputValue] {
            [.string(c.entity), c.property.map(OutputValue.string) ?? .null, .string(c.kind.rawValue), .string(c.detail),
             .string(Self.migrationText(c.migration)), .string(c.rule)]
        }
        // The rows of this store the new model's migration would reject (doctor's lines).
        let rejected = try session.store.read { try MigrationRowCheck(store: session.store, newModel: newModel).findings($0) }
        // Whether Core Data would open this store with the new model without migrating: its
        // entity version hashes against the store's metadata.
        let hashes = EntityHashComparison.compare(newModel, with: session.store.metadata)
        let store = session.store
        let table: [ReportPart] = diff.changes.isEmpty ? [] : [.rows(columns, diff.changes.map(values))]
        session.results(format: try output).report(Report(value: {
            let changes = OutputValue.array(diff.changes.map { .object(Array(zip(columns, values($0)))) })
            let rows = OutputValue.array(rejected.map { .object(Array(zip(DoctorReport.findingColumns, DoctorReport.values($0, store: store, short: false)))) })
            return .object([("equivalent", .bool(diff.isEquivalent)), ("migration", .string(Self.migrationText(diff.migration))),
                            ("verdict", .string(diff.verdict)),
                            ("opensWithoutMigration", .bool(EntityHashComparison.opensWithoutMigration(hashes))),
                            ("changes", changes), ("rejectedRows", rows)])
        }, people: {
            table + (table.isEmpty ? [] : [.gap]) + [.line(diff.verdict), .line(Self.hashVerdict(hashes, model: "the other model"))]
                + rejected.map { f in
                    .line("rows: \(f.count) \(f.entity ?? "") row(s) break it: \(f.detail) (e.g. "
                          + f.examples.map { "\($0.entity)/p\($0.primaryKey)" }.joined(separator: ", ") + ")")
                }
        }, csv: {
            // Rows only, for the programs that read it; the exit status says the rest.
            table
        }))
        session.output.flush()
        if !diff.isEquivalent { throw ModelsDiffer() }
    }

    /// The store's model to compare from: for a store that holds none of its own, the model
    /// version beside `other` with the store's version hashes (`SourceModel`, as `migrate`
    /// finds it); else the schema's guess, said to be one.
    static func storeModel(_ session: Session, besides other: String) throws -> ManagedObjectModel {
        let store = session.store
        guard SourceModel.isGuessed(store) else { return store.model }
        if isModelFile(other), let found = SourceModel.matching(store.metadata, among: SourceModel.versions(besides: other)) {
            session.warnOnce("the store holds no model of its own (no Z_MODELCACHE): compared from \(found), the version beside with its version hashes")
            return try XcdatamodelReader.model(atPath: found)
        }
        session.warnOnce("the store holds no model of its own (no Z_MODELCACHE) and no --model was given: compared from the schema's guess, "
                         + "whose property names come from its columns and types from their storage, so a name's case or an integer's size is no change")
        return store.model
    }

    private func hashes(session: Session) throws {
        let store = session.store
        let comparisons = EntityHashComparison.compare(store.model, with: store.metadata)
        let results = session.results(format: try output)
        let writer = results.rows(["entity", "computed", "stored", "match"])
        for c in comparisons {
            writer.row([.string(c.entity), c.computed.map { .string(Self.hex($0)) } ?? .null,
                        c.stored.map { .string(Self.hex($0)) } ?? .null, .bool(c.matches)])
        }
        writer.finish()
        results.note("")
        results.note(Self.hashVerdict(comparisons))
        if store.model.source.namesAreCaseInsensitive {
            session.warn("the store has no model cache and no --model was given: the model is the schema's guess, so its hashes cannot match")
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether Core Data would open the store with the model as is, in one sentence.
    static func hashVerdict(_ comparisons: [EntityHashComparison], model: String = "this model") -> String {
        if EntityHashComparison.opensWithoutMigration(comparisons) {
            return "Core Data opens this store with \(model) as is: every entity's version hash matches the store's metadata."
        }
        let differing = comparisons.filter { !$0.matches }.map(\.entity)
        return "Core Data must migrate this store to open it with \(model): \(differing.count) of \(comparisons.count) "
            + "entity version hashes differ (\(differing.prefix(8).joined(separator: ", "))\(differing.count > 8 ? ", …" : ""))."
    }

    /// The model of a store (by path or app name) or of an Xcode model file.
    static func model(of other: String) throws -> ManagedObjectModel {
        if isModelFile(other) { return try XcdatamodelReader.model(atPath: other) }
        let path = try StoreSearch.resolve(other)
        return try PersistentStore(path: path, options: .init(readonly: true)).model
    }

    static func isModelFile(_ path: String) -> Bool {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        if trimmed.hasSuffix(".xcdatamodeld") || trimmed.hasSuffix(".xcdatamodel") || trimmed.hasSuffix("/contents") || trimmed == "contents" {
            return true
        }
        guard let head = StoreFile.leadingBytes(of: path, count: 64) else { return false }
        return String(decoding: head, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<?xml")
    }

    static func migrationText(_ m: ModelDiff.Migration) -> String {
        switch m {
        case .none: return "none"
        case .lightweight: return "lightweight"
        case .undocumented: return "not documented"
        case .mappingModel: return "mapping model"
        }
    }

    private func classes(entity: String?, session: Session) throws {
        let store = session.store
        let entities = try entity.map { [try store.entity($0)] }
        let census = try store.read { try ArchivedClassCensus(store: store, entities: entities, $0) }
        let writer = session.results(format: try output).rows(["entity", "attribute", "transformer", "class", "rows"])
        for line in census.lines {
            writer.row([.string(line.entityName), .string(line.attributeName), line.transformerName.map(OutputValue.string) ?? .null,
                        .string(Self.contentText(line.content)), .integer(Int64(line.rows))])
        }
        writer.finish()
        if census.lines.isEmpty {
            session.warn(entity == nil ? "no transformable attribute has a value in this store" : "no transformable attribute of \(entity ?? "") has a value")
        }
    }

    static func contentText(_ content: ArchivedClassCensus.Content) -> String {
        switch content {
        case .archivedClass(let name): return name
        case .propertyList: return "(property list, no archive)"
        case .otherFormat: return "(not an archive: the transformer's own format)"
        case .damaged(let why): return "(damaged: \(why))"
        case .notBytes: return "(not binary data)"
        }
    }
}

/// `model diff` found differences: exit 1 (as `diff` and `cmp` do), after the report's verdict.
public struct ModelsDiffer: Finding, CustomStringConvertible {
    public var description: String { "the models differ" }
}

extension ModelCommand {
    static let tool = ToolDeclaration(
        title: "The store's model",
        description: "The store's model: xml (the .xcdatamodel contents, the default), hashes (each entity's version hash "
            + "against the store's metadata: whether Core Data opens it without migrating), diff (against another model or "
            + "store given as 'other': each change with the migration it needs, and the rows that would break), classes "
            + "(the classes archived in each transformable attribute) or graph (the diagram as Mermaid and DOT text, and each "
            + "entity as a card with its attributes, relationships and version hash).",
        arguments: [ToolArgument("view", .string, "xml (default), hashes, diff, classes or graph."),
                    ToolArgument("other", .string, "For diff: the new model (.xcdatamodeld, .xcdatamodel or contents) or another store, on the server's machine."),
                    .entity("For classes: only this entity.", required: false)],
        answer: .oneOf([.text, .rows(.anyObject), .object([("verdict", .string), ("changes", .array(.anyObject))], required: ["verdict"]), ModelGraphAnswer.shape]),
        view: .model
    ) { a in
        var command = try ModelCommand.parse([])
        let view = a.text("view") ?? "xml"
        // export writes files: not a tool of a read-only server.
        guard ["xml", "hashes", "diff", "classes", "graph"].contains(view) else {
            throw CommandError.usage("model: 'view' takes xml, hashes, diff, classes or graph, not '\(view)'")
        }
        command.view = view
        if view == "graph" { command.format = "json" }
        command.target = view == "diff" ? a.text("other") : view == "classes" ? a.text("entity") : nil
        if view == "diff", command.target == nil { throw CommandError.usage("model: view diff needs 'other', the new model or another store") }
        return command
    }
}
