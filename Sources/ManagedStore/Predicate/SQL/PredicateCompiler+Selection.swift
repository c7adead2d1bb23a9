import Foundation
import GRDB

extension PredicateCompiler {
    /// A property of the fetched entity or a to-one key path from it, as a SELECT column:
    /// joins are outer, so that rows without the relationship are still returned.
    struct Selected {
        let name: String
        let sql: String
        let attribute: AttributeDescription?
        /// For a to-one relationship: its destination, and the column naming the concrete entity.
        let destination: String?
        let entityColumnSQL: String?
    }

    /// `toManyKeys`: a key ending at a to-many relationship is accepted (as `NULL`, its
    /// destinations being read through the object, as a fault fires), where a dictionary
    /// fetch, like Core Data's `propertiesToFetch`, refuses it. `KEY.@count` after a to-many
    /// relationship is always accepted: the count subquery an `NSExpressionDescription`
    /// of `count:` selects.
    func selectable(_ keyPath: String, in root: SQLScope, toManyKeys: Bool = false) throws -> Selected {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var scope = root
        let ctx = Context(scope: root, variables: [:], outer: true)
        for (i, key) in keys.enumerated() {
            let last = i == keys.count - 1
            if let (leaf, end) = scope.entity.compositeLeaf(keys, from: i), end == keys.count - 1 {
                guard let column = leaf.column else { throw error("\(keyPath) is not stored in the store", at: 0) }
                return Selected(name: keyPath, sql: scope.column(column), attribute: leaf.attribute, destination: nil, entityColumnSQL: nil)
            }
            if scope.entity.isComposite(key) { throw compositeError(key, keys, from: i, scope.entity, at: 0) }
            let (attribute, relationship) = property(key, of: scope.entity)
            if let attribute, last {
                guard let column = attribute.column else { throw error("\(keyPath) is not stored in the store", at: 0) }
                return Selected(name: keyPath, sql: scope.column(column), attribute: attribute.attribute, destination: nil, entityColumnSQL: nil)
            }
            guard let relationship, !relationship.relationship.isToMany else {
                if let relationship {
                    if i == keys.count - 2, keys[i + 1] == "@count" {
                        let counted = try self.keyPath(Self.keyPathNode(keyPath), Context(scope: root, variables: [:], outer: true))
                        guard counted.fragment.arguments.isEmpty else { throw error("\(keyPath) cannot be selected", at: 0) }
                        return Selected(name: keyPath, sql: counted.fragment.sql,
                                        attribute: AttributeDescription(name: "@count", type: .integer64, isOptional: false),
                                        destination: nil, entityColumnSQL: nil)
                    }
                    if last, toManyKeys {
                        return Selected(name: keyPath, sql: "NULL", attribute: nil,
                                        destination: relationship.relationship.destinationEntityName, entityColumnSQL: nil)
                    }
                    if last {
                        throw error("\(key) is a to-many relationship, which a dictionary result cannot hold; "
                                    + "fetch \(keyPath).@count, or the objects", at: 0)
                    }
                    throw error("\(keyPath): to-many key not allowed here", at: 0)
                }
                if attribute != nil { throw error("\(key) is an attribute of \(scope.entity.name); it has no key \(keys[i + 1])", at: 0) }
                throw notFound(key, scope.entity, at: 0)
            }
            if last {
                guard case .foreignKey(let column, let entityColumn) = relationship.storage else {
                    throw error("relationship \(key) has no key column in this store", at: 0)
                }
                return Selected(name: keyPath, sql: scope.column(column), attribute: nil,
                                destination: relationship.relationship.destinationEntityName,
                                entityColumnSQL: entityColumn.map { scope.column($0) })
            }
            scope = try follow(relationship, from: scope, ctx, at: 0)
        }
        throw error("empty key path", at: 0)
    }

    /// A sort key as an ORDER BY term.
    func orderTerm(_ keyPath: String, in root: SQLScope) throws -> SQLFragment {
        try self.keyPath(Self.keyPathNode(keyPath), Context(scope: root, variables: [:], outer: true)).fragment
    }

    /// A dotted key path as the parser would have read it from a predicate.
    static func keyPathNode(_ keyPath: String) -> PredicateOperand {
        var node = PredicateOperand(.evaluatedObject, at: 0)
        for key in keyPath.split(separator: ".", omittingEmptySubsequences: false) { node = PredicateOperand(.keyPath(node, String(key)), at: 0) }
        return node
    }
}
