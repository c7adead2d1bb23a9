import ArgumentParser
import Foundation
import ManagedStore

/// `migrate --model NEW`: the migration Core Data runs when the app opens the store with
/// NEW, run here: planned (`MigrationPlan`), shown (`--dry-run`), written to a new store
/// (`--to`) or into the store (`--in-place`, after a snapshot).
public struct MigrateCommand: SessionCommand {
    public static let traits = CommandTraits(group: .model, ownsModelOption: true, tool: tool)

    public static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate the store to a new model version, as Core Data migrates it when the app opens it with that model.",
        discussion: """
            The mapping is the one Core Data infers for a lightweight migration (entities and properties matched by \
            renaming identifier, else by name; the changes 'model diff' calls lightweight), or the mapping model \
            given with --mapping (an .xcmappingmodel: its entity mappings and value expressions such as \
            $source.name and FUNCTION($source, "valueForKeyPath:", "name"); an entity mapping with a custom \
            migration policy is refused, naming the policy, since that code runs only in the app). Refused, with \
            nothing written, when a change needs a mapping model and none is given, and when rows would fail the \
            new model (the rows 'doctor --model' lists: a required attribute without a default over NULLs, a new \
            uniqueness constraint over repeats). The result is laid out as 'create' lays out the new model: rows \
            keep their Z_PK and Z_OPT and take the new entity numbers; join tables, Z_PRIMARYKEY, persistent \
            history, external data files and Z_METADATA (the store's UUID and keys, the new version hashes and \
            identifier) come along, and Z_MODELCACHE holds the new model. --dry-run prints the plan: each entity's \
            rows and where each changed column comes from, the join tables, what is dropped (with counts), what is \
            refused and why; it writes nothing, and exits 1 when the migration would be refused. --to OUT writes \
            a new store and never touches the store; --in-place first keeps the store as the snapshot \
            before-migrate-TIME, then puts the migrated store's pages into it in one write through its journal \
            (killed at any point, the store is as before or as after). Run --in-place as 'cdinspect migrate STORE \
            …', not in a session, whose contexts hold the store as it was.
            """)

    @Option(name: .long, help: ArgumentHelp("The new model: an .xcdatamodeld (its current version), .xcdatamodel or contents file.", valueName: "model"))
    public var model: String
    @Option(name: .long, help: ArgumentHelp("The model version the store was written with, for a store that holds none (no Z_MODELCACHE); "
                                            + "without it, the version beside --model with the store's version hashes.", valueName: "model"))
    public var sourceModel: String?
    @Option(name: .long, help: ArgumentHelp("A mapping model to follow instead of the inferred mapping (.xcmappingmodel).", valueName: "mapping"))
    public var mapping: String?
    @Option(name: .long, help: ArgumentHelp("Write the migrated store to this new file.", valueName: "out"))
    public var to: String?
    @Flag(name: .long, help: "Print the plan and write nothing.")
    public var dryRun = false
    @Flag(name: .long, help: "Migrate the store itself, after keeping it as a snapshot.")
    public var inPlace = false
    @Flag(name: .long, help: "Migrate in place even while other processes have the store open.")
    public var force = false
    @OptionGroup public var output: FormatOption

    public init() {}

    public func validate() throws {
        let targets = [to != nil, dryRun, inPlace].filter { $0 }.count
        if targets == 0 { throw ValidationError("say what to do: --dry-run (the plan), --to OUT (a new store) or --in-place") }
        if targets > 1 { throw ValidationError("--dry-run, --to and --in-place exclude one another") }
    }

    public func run(in session: Session) throws {
        guard ModelCommand.isModelFile(model) else {
            throw CommandError.usage("--model takes a model file (.xcdatamodeld, .xcdatamodel or contents), not '\(model)'")
        }
        if inPlace && !session.runsOneCommand {
            throw CommandError.usage("migrate --in-place replaces the store under this session's contexts: run it as 'cdinspect migrate STORE --model \(model) --in-place'")
        }
        let store = try sourceStore(session.store)
        let newModel = try XcdatamodelReader.model(atPath: model)
        let followed = try mapping.map { try MappingModelReader.mapping(atPath: $0, from: store.model, to: newModel) }
        let plan = try MigrationPlan.plan(store, to: newModel, mapping: followed)
        if dryRun {
            session.results(output).report(MigrationReport.report(plan, store: store, outcome: nil))
            session.output.flush()
            if plan.isRefused { throw MigrationRefused() }
            return
        }
        let outcome: StoreMigration.Outcome
        if inPlace {
            let (keepName, keep) = try SnapshotLibrary.keepingFolder("before-migrate", of: store)
            outcome = try StoreMigration.migrateInPlace(store, plan: plan, keepName: keepName, keep: keep, force: force)
        } else {
            outcome = try StoreMigration.migrate(store, plan: plan, to: to ?? "")
        }
        session.results(output).report(MigrationReport.report(plan, store: store, outcome: outcome))
    }
}

extension MigrateCommand {
    /// The store as the migration reads it: with `--source-model`, checked against the
    /// store's version hashes; a store that holds no model of its own, with the version beside
    /// `--model` that has its hashes (`SourceModel`), as Core Data picks it from the app's.
    func sourceStore(_ store: PersistentStore) throws -> PersistentStore {
        if let sourceModel {
            guard ModelCommand.isModelFile(sourceModel) else {
                throw CommandError.usage("--source-model takes a model file (.xcdatamodeld, .xcdatamodel or contents), not '\(sourceModel)'")
            }
            return try SourceModel.reopened(store, withModel: sourceModel)
        }
        guard SourceModel.isGuessed(store) else { return store }
        guard let found = try SourceModel.reopenedWithFoundVersion(store, besides: model) else {
            throw MigrationError.sourceModelUnknown(tried: SourceModel.versions(besides: model).count)
        }
        return found.store
    }
}

/// A dry run found the migration refused: exit 1, after the plan, which says why.
public struct MigrationRefused: Finding, CustomStringConvertible {
    public var description: String { "the migration would be refused" }
}

extension MigrateCommand {
    static let tool = ToolDeclaration(
        title: "Migration plan",
        description: "What Core Data's migration does to this store when the app opens it with a new model version, without "
            + "writing anything: each entity's rows and where changed columns come from, the join tables, what is dropped "
            + "(with counts), and what would be refused and why (changes needing a mapping model, rows the new model rejects).",
        answersWithStoreContent: true,
        arguments: [ToolArgument("model", .string, "The new model version: an .xcdatamodeld, .xcdatamodel or contents file on the server's machine.", required: true),
                    ToolArgument("mapping", .string, "A mapping model (.xcmappingmodel) on the server's machine to follow instead of the inferred mapping."),
                    ToolArgument("sourceModel", .string, "The model version the store was written with, for a store that holds none (no Z_MODELCACHE); "
                                 + "otherwise the version beside the new model with the store's version hashes is used.")],
        answer: .object([("steps", .array(.anyObject)), ("joins", .array(.anyObject)), ("drops", .array(.anyObject)),
                         ("refused", .array(.anyObject)), ("verdict", .string)], required: ["steps", "drops", "refused", "verdict"])
    ) { a in
        var command = try MigrateCommand.parse(["--model", a.text("model") ?? "", "--dry-run"])
        command.mapping = a.text("mapping")
        command.sourceModel = a.text("sourceModel")
        return command
    }
}
