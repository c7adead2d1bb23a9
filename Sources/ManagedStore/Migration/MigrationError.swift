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
    /// The store has no model to migrate from (no model cache and no model given).
    case noSourceModel
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
            return "the store has no model cache, so the model it was written with is unknown"
        case .outputExists(let path):
            return "\(path) exists: a migration writes a new store and never replaces one"
        }
    }
}
