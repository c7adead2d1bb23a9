import ArgumentParser
import Foundation
import ManagedStore

public struct DoctorCommand: SessionCommand {
    public static let traits = CommandTraits(group: .health, ownsModelOption: true, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Where the space goes, what is broken, and whether the rows survive the next model version.",
        discussion: """
            Read-only. Space: the main file, the -wal and the external data files; per table its rows, bytes and \
            index bytes (SQLite's dbstat); the heaviest attributes (total and largest value); \
            persistent history; the model cache; free pages a VACUUM would give back. Largest first, \
            with each one's share. Health, each finding with a severity, a count, up to five object IDs and what the \
            app would meet: SQLite's quick_check (--full: integrity_check), Z_MAX below the largest Z_PK (the \
            app's next insert fails), Z_ENT values no entity has, to-one keys and join-table rows pointing at rows \
            that are gone, one-to-one pairs that disagree, ordered relationships with shared positions, required \
            values that are NULL, values of another type or out of range, duplicates under a uniqueness \
            constraint, external data files missing or left behind, history changes whose transaction or object is \
            gone. With --model NEW (an .xcdatamodeld, .xcdatamodel or contents file): the rows its migration would \
            reject (a new required attribute without a default, an attribute made required while rows hold NULL, \
            a new uniqueness constraint over rows that repeat), with the Cocoa error the app would get. Exit 0 when \
            nothing error-level is found, 1 otherwise. Progress goes to stderr after a second; Ctrl-C stops it.
            """)

    @Option(name: .long, help: ArgumentHelp("The next model version: report the rows its migration would reject.", valueName: "model"))
    public var model: String?
    @Flag(name: .long, help: "Run SQLite's full integrity_check instead of quick_check.")
    public var full = false
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        var store = session.store
        if let model {
            guard ModelCommand.isModelFile(model) else {
                throw CommandError.usage("--model takes a model file (.xcdatamodeld, .xcdatamodel or contents), not '\(model)'")
            }
            // A store without a model of its own is read with the version beside the next
            // one that has its hashes, as migrate reads it (`SourceModel`).
            if let found = try SourceModel.reopenedWithFoundVersion(store, besides: model) {
                session.warnOnce("the store holds no model of its own (no Z_MODELCACHE): read with \(found.path), the version beside with its version hashes")
                store = found.store
            }
        }
        var doctor = StoreDoctor(store: store)
        doctor.fullIntegrityCheck = full
        if let model { doctor.newModel = try XcdatamodelReader.model(atPath: model) }
        let started = Date()
        let report = try doctor.examine { phase in
            // Quiet on a small store; on a big one, say what it is doing after a second.
            if Date().timeIntervalSince(started) > 1 { FileHandle.standardError.writeIgnoringErrors(Data("doctor: \(phase)…\n".utf8)) }
        }
        session.results(output).report(DoctorReport.report(report, store: store))
        session.output.flush()
        if report.errors > 0 { throw DoctorFoundErrors(count: report.errors) }
    }
}

/// `doctor` found error-level problems: exit 1, after the report, which says so.
public struct DoctorFoundErrors: Finding, CustomStringConvertible {
    public let count: Int
    public var description: String { "doctor found \(count) error(s)" }
}

extension DoctorCommand {
    static let tool = ToolDeclaration(
        title: "Store health",
        description: "What is broken in the store and where its space goes: SQLite's integrity check, Z_MAX behind the rows, "
            + "dangling relationships, required values that are NULL, duplicates under a uniqueness constraint, missing external "
            + "data; with 'model' (the next model version's file), the rows its migration would reject. Each finding has a "
            + "severity, a count and up to five object IDs.",
        answersWithStoreContent: true,
        arguments: [ToolArgument("model", .string, "The next model version: an .xcdatamodeld, .xcdatamodel or contents file on the server's machine."),
                    ToolArgument("full", .boolean, "SQLite's full integrity_check instead of quick_check.")],
        answer: .object([("space", .anyObject), ("findings", .array(.object([("check", .string), ("severity", .string)], required: ["check", "severity"]))), ("errors", .integer), ("warnings", .integer), ("verdict", .string)], required: ["findings", "errors", "warnings", "verdict"]),
        view: .doctor
    ) { a in
        var command = try DoctorCommand.parse([])
        command.model = a.text("model")
        command.full = a.flag("full")
        return command
    }
}
