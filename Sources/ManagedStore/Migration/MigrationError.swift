/// Why a migration does not run, in Core Data's terms: each carries what a user needs to act
/// (the changes, the rows, the policy), and none names an option of a front end.
public enum MigrationError: Error, CustomStringConvertible, Equatable {
    /// Changes an inferred mapping model does not cover (`ModelDiff`'s verdicts), and no
    /// mapping model was given.
    case needsMappingModel(changes: [String])
    /// Rows the destination model rejects (`MigrationRowCheck`): Core Data's migration fails
    /// with the Cocoa error each names.
    case rowsRejected(findings: [String])
    /// An entity mapping names a migration policy written in code, which cannot run here.
    case customPolicy(entityMapping: String, policy: String)
    /// A value expression of a mapping model in a form that cannot be evaluated in SQL here.
    case unevaluable(entityMapping: String, property: String, expression: String)
    /// A mapping model that is not for these two models, or that cannot be read.
    case badMappingModel(String)
    /// The store already has the destination model's version hashes.
    case alreadyMigrated
    /// The store has no model to migrate from: it is not a Core Data store.
    case noSourceModel
    /// The store holds no model of its own (no model cache, or one that does not decode), and
    /// none of `tried` model versions has its version hashes (`SourceModel`).
    case sourceModelUnknown(tried: Int)
    /// The source model given is not the one the store was written with: these entities'
    /// version hashes differ from the store's.
    case sourceModelMismatch(entities: [String])
    /// The output exists: a migration writes a new store and never replaces one.
    case outputExists(path: String)

    public var description: String {
        switch self {
        case .needsMappingModel(let changes):
            return "Core Data cannot infer a mapping model for \(changes.count) change\(changes.count == 1 ? "" : "s"): "
                + changes.joined(separator: "; ") + " (Cocoa error 134140, \"Can't find mapping model for migration\")"
        case .rowsRejected(let findings):
            return "the migration would fail on the store's rows: " + findings.joined(separator: "; ")
        case .customPolicy(let mapping, let policy):
            return "entity mapping \(mapping) uses the migration policy \(policy), code that runs only in the app: "
                + "it is not run here, and nothing was migrated"
        case .unevaluable(let mapping, let property, let expression):
            return "entity mapping \(mapping): the value expression of \(property), \(expression), cannot be evaluated outside the app"
        case .badMappingModel(let why):
            return "mapping model: \(why)"
        case .alreadyMigrated:
            return "the store's version hashes are already the model's: Core Data opens it without a migration"
        case .noSourceModel:
            return "the store is not a Core Data store, so it has no model to migrate from"
        case .sourceModelUnknown(let tried):
            return "the store holds no model of its own (no Z_MODELCACHE)"
                + (tried > 0 ? ", and no version of the new model's bundle has its version hashes (\(tried) tried)" : "")
                + ": its properties' names and types are unknown, and a migration by the names its columns suggest would drop their values"
        case .sourceModelMismatch(let entities):
            return "the source model is not the one the store was written with: the version hashes of \(entities.joined(separator: ", ")) "
                + "differ from the store's (Core Data refuses it: Cocoa error 134100, \"The model used to open the store is incompatible with the one used to create the store\")"
        case .outputExists(let path):
            return "\(path) exists: a migration writes a new store and never replaces one"
        }
    }
}
