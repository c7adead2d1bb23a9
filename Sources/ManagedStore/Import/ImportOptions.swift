/// How an import reads its file and what it may write.
public struct ImportOptions: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case json, csv
    }

    public enum Mode: String, Sendable, CaseIterable {
        /// Nothing is written when any object is rejected.
        case allOrNothing = "all-or-nothing"
        /// The objects that pass are written; the rejected ones are named.
        case skipInvalid = "skip-invalid"
    }

    /// The entity of a JSON array's or a CSV file's objects.
    public var entity: String?
    /// nil: CSV for a file named `.csv`, JSON otherwise.
    public var format: Format?
    /// Report what would be written, and write nothing.
    public var dryRun = false
    public var mode = Mode.allOrNothing
    /// Attributes whose values find the object an incoming one updates; empty: every
    /// incoming object is inserted.
    public var upsertKeys: [String] = []
    /// `--upsert objectID`: an object whose object ID names this store updates the object it
    /// names, or where no row holds that key (an object deleted since, as `recover` exports
    /// it) is inserted under it again; other objects are inserted.
    public var upsertsByObjectID: Bool { upsertKeys == [ImportOptions.objectIDKey] }
    /// Whether an object whose object ID names this store updates the object it names (or is
    /// put back under its key): with `--upsert objectID`, and by default, so that `fetch` →
    /// edit → `import` changes the objects it fetched instead of adding copies of them. Objects
    /// of another store (another `Z_UUID`) are inserted under new keys, and the result says so.
    public var matchesOwnObjectIDs: Bool { upsertKeys.isEmpty || upsertsByObjectID }
    public static let objectIDKey = "objectID"
    /// To-one relationships whose values are a key attribute of the destination, by
    /// relationship name.
    public var links: [String: String] = [:]
    /// Objects that break the model's rules a save checks for the object (a required value
    /// that is nil, a to-many's count), as Core Data itself sometimes leaves them in a store,
    /// are written as they are, each named (`ImportResult.kept`); without it they are rejected.
    /// A value's own rules (its type, range, length, pattern) still reject it.
    public var keepsBrokenRules = false
    public var allowMirrored = false
    /// The transaction author persistent history records for the import.
    public var historyAuthor: String?
    public var ignoreOtherProcesses = false

    public init() {}
}

/// One incoming object the import refused, and why.
public struct ImportRejection: Sendable, Equatable {
    /// `line 12` for CSV, `Person object 3 (line 40)` for JSON.
    public let position: String
    /// The object's upsert key values, or its object ID in the file, when it has one.
    public let key: String?
    public let reason: String
}

/// One incoming object written as it is though it breaks the model's rules
/// (`ImportOptions.keepsBrokenRules`), and the rules it breaks.
public struct ImportKeptObject: Sendable, Equatable {
    /// As a rejection's: `line 12`, `Person object 3 (line 40)`.
    public let position: String
    public let key: String?
    public let brokenRules: [String]
}

/// What an import wrote, or with a dry run would write.
public struct ImportResult: Sendable {
    /// Objects inserted and updated, by entity, in the order entities first came.
    public var inserted: [(entity: String, count: Int)] = []
    public var updated: [(entity: String, count: Int)] = []
    /// Objects an upsert matched whose values were already the incoming ones.
    public var unchanged = 0
    /// The first rejections (up to `rejectionsKept`), and how many there were in all.
    public var rejections: [ImportRejection] = []
    public var rejectedCount = 0
    /// With `keepsBrokenRules`: the first objects written as they are (up to
    /// `rejectionsKept`), and how many there were in all.
    public var kept: [ImportKeptObject] = []
    public var keptCount = 0
    /// Objects already in the store whose relationships the import changed (Core Data
    /// saves them too: their version goes up and history records the change).
    public var touched = 0
    /// False for a dry run, when all-or-nothing met a rejection, and when a rejected object
    /// had an object ID of the file (others may name it).
    public var written = false
    /// With skip-invalid: how many rejected objects had an object ID of the file, which kept
    /// the rest from being written.
    public var namedObjectsRejected = 0
    /// Objects whose object IDs name another store (another `Z_UUID`), inserted under new
    /// keys: copies, which an import says, never silently.
    public var fromOtherStore = 0

    public static let rejectionsKept = 1000

    static func bump(_ entity: String, in list: inout [(entity: String, count: Int)]) {
        if let i = list.firstIndex(where: { $0.entity == entity }) { list[i].count += 1 } else { list.append((entity, 1)) }
    }
}
