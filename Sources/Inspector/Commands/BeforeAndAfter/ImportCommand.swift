import ArgumentParser
import Foundation
import ManagedStore

public struct ImportCommand: SessionCommand {
    public static let traits = CommandTraits(group: .beforeAndAfter)

    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Insert, or with --upsert update, objects from a JSON or CSV file as a context save would.",
        discussion: """
            FILE is export's document, a JSON array of objects as fetch --format json prints them (with --entity, \
            or each with its objectID), or CSV whose header names attributes and to-one relationships (with \
            --entity; an empty field is nil, "" the empty string). A relationship holds object IDs: of an object \
            of the same file (written under a new key: the store's key counter plus the file's key, so a file \
            imported into an empty store keeps its keys) or of one already in the store; with --link REL=KEY it \
            holds the destination's KEY value instead. An object whose objectID names this store (its Z_UUID) \
            updates the object it names, so fetch --format json, an edit, and import change the objects fetched; \
            where no row holds its key any more (a deleted object, as recover exports it) it is put back under it. \
            Objects whose IDs name another store are inserted under new keys, and the report counts them as \
            copies. --upsert KEY matches by attribute values instead. Each object is checked as a save checks it (the \
            attribute's type and range, required attributes and relationships, to-many counts, uniqueness \
            constraints), and written with Core Data's bookkeeping: Z_PK from Z_PRIMARYKEY, Z_OPT, both sides of \
            each relationship (join rows, inverse keys, and the version and history of store objects whose \
            relationships change), and one persistent history transaction by the author cdinspect-import. \
            Everything is one transaction: all-or-nothing (the default) writes nothing when any object is \
            rejected, skip-invalid writes the rest (unless a rejected object has an object ID of the file, which \
            other objects may name); every rejected object is named with its line or index and \
            the reason. --as-is writes objects that break the model's rules for an object (a required value \
            that is nil, a to-many's count), as Core Data itself sometimes leaves them in a store, as they are, \
            and names each with the rules it breaks; a value's own type and range still reject it. --dry-run reports the same and writes nothing. Refused on a CloudKit-mirrored store \
            unless --allow-cloudkit, and while another process has the store open unless --force. Run it as \
            'cdinspect import STORE FILE', not in a session.
            """)

    @Argument(help: ArgumentHelp("The file to import.", valueName: "file"), completion: .file())
    public var file: String

    @Option(name: .long, help: ArgumentHelp("The entity of a JSON array's or a CSV file's objects.", valueName: "entity"),
            completion: EntityCompletion.kind)
    public var entity: String?

    @Option(name: .customLong("format"), help: ArgumentHelp("The file's format: json or csv (default: csv for a .csv file, json otherwise).",
                                                           valueName: "json|csv"))
    public var inputFormat: String?

    @Flag(name: .long, help: "Report what would be inserted, updated and rejected, and write nothing.")
    public var dryRun = false

    @Option(name: .long, help: ArgumentHelp("all-or-nothing (the default): write nothing when any object is rejected; skip-invalid: write the rest.",
                                            valueName: "mode"))
    public var mode: String?

    @Option(name: .long, help: ArgumentHelp("Update the object whose KEY attributes hold the incoming values; insert when there is none. "
                                            + "objectID: update the object an object ID of this store names, or put it back under its own ID "
                                            + "where no row holds it (as recover writes them).", valueName: "key[,key]"))
    public var upsert: String?

    @Option(name: .long, help: ArgumentHelp("A to-one relationship whose values are the destination's KEY attribute, not object IDs.",
                                            valueName: "rel=key"))
    public var link: [String] = []

    @Flag(name: .customLong("as-is"), help: "Write objects that break the model's rules (a required value that is nil, a to-many's count) as they are, each named.")
    public var asIs = false

    @Flag(name: .long, help: "Import into a CloudKit-mirrored store: the app will export the new objects to iCloud.")
    public var allowCloudkit = false

    @Flag(name: .long, help: "Import even while other processes have the store open.")
    public var force = false

    public init() {}

    public func validate() throws {
        if let inputFormat, ImportOptions.Format(rawValue: inputFormat.lowercased()) == nil {
            throw ValidationError("--format takes json or csv, not \(inputFormat)")
        }
        if let mode, ImportOptions.Mode(rawValue: mode) == nil {
            throw ValidationError("--mode takes all-or-nothing or skip-invalid, not \(mode)")
        }
        for item in link where item.split(separator: "=").count != 2 {
            throw ValidationError("--link takes REL=KEY, as owner=name, not \(item)")
        }
        if let upsert, upsert.split(separator: ",").isEmpty { throw ValidationError("--upsert names at least one key attribute") }
    }

    var options: ImportOptions {
        var options = ImportOptions()
        options.entity = entity
        options.format = inputFormat.flatMap { ImportOptions.Format(rawValue: $0.lowercased()) }
        options.dryRun = dryRun
        options.mode = mode.flatMap(ImportOptions.Mode.init(rawValue:)) ?? .allOrNothing
        options.upsertKeys = upsert.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        for item in link {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            options.links[parts[0]] = parts[1]
        }
        options.keepsBrokenRules = asIs
        options.allowMirrored = allowCloudkit
        options.historyAuthor = "cdinspect-import"
        options.ignoreOtherProcesses = force
        return options
    }

    public func run(in session: Session) throws {
        guard session.runsOneCommand else {
            throw CommandError.usage("import writes past this session's contexts: run it as 'cdinspect import STORE \(file)'")
        }
        let store = session.store
        let importer = try StoreImport(store: store, file: file, options: options)
        let progress = ProgressLine()
        let result = try importer.run(progress: { pass, objects in progress.show("\(pass == 1 ? "reading" : "importing") \(objects) objects…") })
        progress.clear()
        session.results().report(ImportReport(result: result, dryRun: dryRun, asIs: asIs).report)
        if result.namedObjectsRejected > 0 && !dryRun {
            throw CommandError.failed("\(result.namedObjectsRejected) rejected object(s) have object IDs other objects of the file may name: "
                                      + "nothing was written (correct or remove them and what names them)")
        }
        guard result.rejectedCount == 0 || (options.mode == .skipInvalid && !dryRun) else {
            throw CommandError.failed(dryRun ? "\(result.rejectedCount) object(s) would be rejected"
                                      : "\(result.rejectedCount) object(s) rejected: nothing was written (--mode skip-invalid writes the rest)")
        }
    }
}

/// An import's result, for people and as JSON.
struct ImportReport {
    let result: ImportResult
    let dryRun: Bool
    /// `--as-is`: the objects written as they are are reported too.
    var asIs = false

    var report: Report {
        Report(value: {
            var fields: [(String, OutputValue)] = [
                ("written", .bool(result.written)),
                ("inserted", .object(result.inserted.map { ($0.entity, .integer(Int64($0.count))) })),
                ("updated", .object(result.updated.map { ($0.entity, .integer(Int64($0.count))) })),
                ("unchanged", .integer(Int64(result.unchanged))),
                ("storeObjectsTouched", .integer(Int64(result.touched))),
                ("fromOtherStore", .integer(Int64(result.fromOtherStore))),
                ("rejectedCount", .integer(Int64(result.rejectedCount))),
                ("rejected", .array(result.rejections.map { r in
                    .object([("at", .string(r.position)), ("key", r.key.map(OutputValue.string) ?? .null), ("reason", .string(r.reason))])
                })),
            ]
            if asIs {
                fields.append(("keptAsIsCount", .integer(Int64(result.keptCount))))
                fields.append(("keptAsIs", .array(result.kept.map { k in
                    .object([("at", .string(k.position)), ("key", k.key.map(OutputValue.string) ?? .null),
                             ("breaks", .array(k.brokenRules.map(OutputValue.string)))])
                })))
            }
            return .object(fields)
        }, people: {
            var parts: [ReportPart] = []
            let verb = dryRun || !result.written ? "would insert" : "inserted"
            let inserted = result.inserted.map { "\($0.count) \($0.entity)" }
            let updated = result.updated.map { "\($0.count) \($0.entity)" }
            var summary = "\(verb) " + (inserted.isEmpty ? "nothing" : inserted.joined(separator: ", "))
            if !updated.isEmpty { summary += "; \(dryRun || !result.written ? "would update" : "updated") " + updated.joined(separator: ", ") }
            if result.unchanged > 0 { summary += "; \(result.unchanged) unchanged" }
            if result.touched > 0 { summary += "; \(result.touched) store object(s) gain or lose related objects" }
            if result.fromOtherStore > 0 {
                summary += "; \(result.fromOtherStore) of the inserted are copies of another store's objects (their IDs name another Z_UUID)"
            }
            parts.append(.line(summary))
            if result.rejectedCount > 0 {
                parts.append(.line("rejected \(result.rejectedCount):"))
                for r in result.rejections {
                    parts.append(.line("  \(r.position)" + (r.key.map { " [\($0)]" } ?? "") + ": \(r.reason)"))
                }
                if result.rejectedCount > result.rejections.count {
                    parts.append(.line("  … and \(result.rejectedCount - result.rejections.count) more"))
                }
            }
            if result.keptCount > 0 {
                parts.append(.line("\(dryRun || !result.written ? "would keep" : "kept") \(result.keptCount) as they are, breaking the model's rules:"))
                for k in result.kept {
                    parts.append(.line("  \(k.position)" + (k.key.map { " [\($0)]" } ?? "") + ": " + k.brokenRules.joined(separator: "; ")))
                }
                if result.keptCount > result.kept.count { parts.append(.line("  … and \(result.keptCount - result.kept.count) more")) }
            }
            if dryRun { parts.append(.line("dry run: nothing was written")) }
            return parts
        })
    }
}
