/// Where Core Data puts a column in its table's `CREATE TABLE`, read from the tables it laid
/// out itself (DuckDuckGo's Bookmarks, Screen Time, knowledgeC, Notes, CoreDataPlus, CartKit,
/// wibosco's, a banking app's, Wire's tables rebuilt by a migration):
///
/// - `Z_PK`, `Z_ENT`, `Z_OPT`;
/// - then the columns by the kind of value they store: integers (the integer and Boolean
///   attributes, then the to-one keys, each followed by its entity-number column, then the
///   keys Core Data adds for a to-many without an inverse); the order keys; then dates
///   with doubles and floats; decimals; strings; UUIDs; URIs; transformables; binary data;
/// - within a kind, the entities of the table in the order of their numbers (the root first,
///   so a sub-entity's integers come before the root's dates), and within an entity by the
///   properties' names, except the order keys, which stand in the order Core Data walks the
///   entity's to-ones (`PropertyTable`).
///
/// Screen Time's `ZCOREORGANIZATIONSETTINGS` shows the kind coming before the entity: the
/// abstract root's integers, Cloud's keys, Family's Booleans and keys, Local's keys, and only
/// then the root's string `ZUNIQUEIDENTIFIER`. The order is what a `SELECT *` and a reader of
/// the file see; Core Data itself reads columns by name.
struct ColumnSlot: Comparable {
    /// The kinds of stored value, in the order their columns come.
    enum Kind: Int, Comparable {
        case bookkeeping, integer, orderKey, real, decimal, string, uuid, uri, transformable, binary, other

        static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }

        init(_ type: AttributeType) {
            switch type {
            case .integer16, .integer32, .integer64, .boolean, .objectID: self = .integer
            case .date, .double, .float: self = .real
            case .decimal: self = .decimal
            case .string: self = .string
            case .uuid: self = .uuid
            case .uri: self = .uri
            case .transformable, .codable: self = .transformable
            case .binaryData: self = .binary
            case .undefined, .composite: self = .other
            }
        }
    }

    /// Among an entity's integer columns: attributes, then to-one keys, order keys, and the
    /// keys of other entities' to-manys without an inverse.
    enum Role: Int, Comparable {
        case attribute, toOneKey, orderKey, hiddenKey

        static func < (a: Role, b: Role) -> Bool { a.rawValue < b.rawValue }
    }

    var kind: Kind
    /// The number of the entity whose property the column stores.
    var entity: Int
    var role: Role
    /// Before the name: an order key's place in `PropertyTable`'s walk; 0 for other columns.
    var walk: Int = 0
    /// The property's name (for a hidden key, its column's).
    var name: String
    /// 0, or 1 for the entity-number column that follows its to-one key.
    var tie: Int = 0

    static func bookkeeping(_ position: Int) -> ColumnSlot {
        ColumnSlot(kind: .bookkeeping, entity: 0, role: .attribute, walk: 0, name: "", tie: position)
    }

    static func attribute(_ attribute: AttributeDescription, entity: Int) -> ColumnSlot {
        ColumnSlot(kind: Kind(attribute.type), entity: entity, role: .attribute, walk: 0, name: attribute.name)
    }

    static func key(_ role: Role, of name: String, entity: Int, entityColumn: Bool = false, walk: Int = 0) -> ColumnSlot {
        ColumnSlot(kind: role == .orderKey ? .orderKey : .integer, entity: entity, role: role, walk: walk, name: name, tie: entityColumn ? 1 : 0)
    }

    static func < (a: ColumnSlot, b: ColumnSlot) -> Bool {
        (a.kind, a.entity, a.role, a.walk, a.name, a.tie) < (b.kind, b.entity, b.role, b.walk, b.name, b.tie)
    }
}
