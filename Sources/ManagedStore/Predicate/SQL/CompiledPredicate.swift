/// A predicate compiled for one entity: the WHERE condition, with its bound values, and the
/// joins its key paths need after `FROM table t0`.
public struct CompiledPredicate: Sendable {
    public let condition: SQLFragment
    public let joins: String
    /// What the app's own fetch would do differently (ALL/NONE on a to-many relationship).
    public let warnings: [String]
}
