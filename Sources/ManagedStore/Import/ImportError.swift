/// Why an import did not start or stopped. A row the model refuses is not an error of the
/// import but an `ImportRejection` in its result; these are faults of the whole file or
/// of the store.
public enum ImportError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String)
    case empty(path: String)
    /// The text is not JSON or CSV: the line where reading stopped, and why.
    case malformed(line: Int, why: String)
    /// The document's shape is not one an import takes.
    case shape(String)
    /// A JSON array or a CSV file names no entity, and its objects carry no object IDs.
    case needsEntity
    case storeInUse(path: String, users: [ProcessUse])
    case mirrored(path: String)
    /// A key or link names something the model does not have.
    case unknownKey(entity: String, key: String)

    public var description: String {
        switch self {
        case .unreadable(let path): return "cannot read \(path)"
        case .empty(let path): return "\(path) is empty: there is nothing to import"
        case .malformed(let line, let why): return "line \(line): \(why)"
        case .shape(let why): return why
        case .needsEntity: return "the file does not say which entity its objects are: name it"
        case .storeInUse(let path, let users):
            return "\(path) is open in " + users.map(\.description).joined(separator: ", ")
                + ": an import would change the store under its connections"
        case .mirrored(let path):
            return "\(path) is mirrored to CloudKit: the app would export the imported objects to iCloud when it next runs"
        case .unknownKey(let entity, let key): return "\(entity) has no attribute or relationship \(key)"
        }
    }
}
