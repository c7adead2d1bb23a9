import Foundation

/// One object as the file gives it: its entity, its object ID in the file if it has one,
/// and its keys' values in the file's order (a CSV row's as the reader's bytes).
struct IncomingObject {
    enum Value {
        case json(JSONReader.Value)
        /// A value given as text; `quoted` tells `""` (the empty string) from nothing (nil).
        case text(String, quoted: Bool)
    }

    /// A CSV row: the record's bytes and fields, read by the header's keys. The arrays are
    /// the reader's, shared, not copied: a row makes no String per field.
    struct Row {
        let bytes: [UInt8]
        let fields: [CSVReader.Field]
        let header: [String]
    }

    var entity: EntityMapping
    /// The line the object starts on, and for JSON its place among its entity's objects.
    var line: Int
    var index: Int?
    /// The object ID the file gives it (`x-coredata://UUID/Person/p3`), parsed.
    var sourceID: (storeUUID: String?, entityName: String, primaryKey: Int64)?
    var sourceIDText: String?
    var fields: [(key: String, value: Value)] = []
    var row: Row?
    /// Why the object cannot be read at all (a CSV row the header does not fit).
    var problem: String? = nil

    /// Where the object is, for a rejection: `line 12`, `Person object 3 (line 40)`.
    var position: String { index.map { "\(entity.name) object \($0) (line \(line))" } ?? "line \(line)" }

    /// The value of `key`, for an upsert key and a link.
    func value(of key: String) -> Value? {
        if let row {
            guard let i = row.header.firstIndex(of: key), i < row.fields.count else { return nil }
            let field = row.fields[i]
            return .text(String(decoding: row.bytes[field.range], as: UTF8.self), quoted: field.quoted)
        }
        return fields.first { $0.key == key }?.value
    }
}

/// The objects of an import file, one at a time, whatever its shape: `export`'s document,
/// a JSON array of objects as `fetch --format json` prints them, or CSV with a header.
protocol IncomingObjects {
    /// The next object; nil after the last. A fault in the text throws.
    mutating func next() throws -> IncomingObject?
    /// The store UUID the file's object IDs were written with, once known.
    var fileStoreUUID: String? { get }
    /// Whether objects may carry object IDs of the file (JSON; CSV with an objectID column).
    var mayNameObjects: Bool { get }
    func close()
}

/// `export`'s document (`{"format": 1, "storeUUID", "versionHashes", "entities": [{"entity",
/// "objects": […]}]}`) or an array of objects.
struct JSONObjects: IncomingObjects {
    private var reader: JSONReader
    private let mapping: StoreMapping
    private let entity: EntityMapping?
    private(set) var fileStoreUUID: String?
    var mayNameObjects: Bool { true }

    private enum State {
        case start
        /// Inside an array of objects (the top level's, or one entity's in a document).
        case objects(entity: EntityMapping?, first: Bool, index: Int, inDocument: Bool)
        /// Inside the document's `entities` array.
        case entities(first: Bool)
        /// Between the document's top-level keys.
        case document(first: Bool)
        case finished
    }
    private var state = State.start
    private var sawEntities = false

    init(path: String, mapping: StoreMapping, entity: EntityMapping?) throws {
        reader = try JSONReader(path: path)
        self.mapping = mapping
        self.entity = entity
    }

    func close() { reader.close() }

    mutating func next() throws -> IncomingObject? {
        while true {
            switch state {
            case .start:
                switch try reader.peekToken() {
                case nil: throw ImportError.shape("the file holds no JSON")
                case 91: state = .objects(entity: entity, first: true, index: 0, inDocument: false)
                case 123: state = .document(first: true)
                default: throw ImportError.shape("expected an export document or an array of objects")
                }
            case .document(var first):
                guard let key = try reader.nextKey(first: &first) else {
                    guard sawEntities else {
                        throw ImportError.shape("expected export's document, with its \"entities\", or an array of objects")
                    }
                    guard try reader.isAtEnd() else { throw reader.malformed("text follows the end of the document") }
                    state = .finished
                    continue
                }
                state = .document(first: false)
                switch key {
                case "format":
                    guard case .number(let n) = try reader.value(), n == "1" else {
                        throw ImportError.shape("the document's format is not 1, the one this version reads")
                    }
                case "storeUUID":
                    guard case .string(let s) = try reader.value() else { throw ImportError.shape("the document's storeUUID is not text") }
                    fileStoreUUID = s
                case "entities":
                    sawEntities = true
                    state = .entities(first: true)
                default:
                    // versionHashes, and keys a later version may add.
                    try reader.skipValue()
                }
            case .entities(var first):
                guard try reader.nextElement(first: &first) else {
                    state = .document(first: false)
                    continue
                }
                var objectFirst = true
                guard try reader.nextKey(first: &objectFirst) == "entity", case .string(let name) = try reader.value() else {
                    throw reader.malformed("each of the document's entities starts with its \"entity\" name")
                }
                guard let found = mapping.entity(named: name) else { throw ImportError.shape("the document's entity \(name) is not in the store's model") }
                guard try reader.nextKey(first: &objectFirst) == "objects" else {
                    throw reader.malformed("the entity \(name) has no \"objects\" after its name")
                }
                state = .objects(entity: found, first: true, index: 0, inDocument: true)
            case .objects(let entity, var first, let index, let inDocument):
                guard try reader.nextElement(first: &first) else {
                    if inDocument {
                        var objectFirst = false
                        if let extra = try reader.nextKey(first: &objectFirst) {
                            throw reader.malformed("an entity of the document has a key \(extra) after its objects")
                        }
                        state = .entities(first: false)
                    } else {
                        guard try reader.isAtEnd() else { throw reader.malformed("text follows the end of the array") }
                        state = .finished
                    }
                    continue
                }
                state = .objects(entity: entity, first: false, index: index + 1, inDocument: inDocument)
                return try object(entity, index: index + 1)
            case .finished:
                return nil
            }
        }
    }

    private mutating func object(_ given: EntityMapping?, index: Int) throws -> IncomingObject {
        guard try reader.peekToken() == 123 else { throw reader.malformed("expected an object") }
        let line = reader.line
        var entity = given
        var first = true
        var fields: [(key: String, value: IncomingObject.Value)] = []
        var sourceID: (storeUUID: String?, entityName: String, primaryKey: Int64)?
        var sourceIDText: String?
        while let key = try reader.nextKey(first: &first) {
            if key == "objectID" {
                guard case .string(let text) = try reader.value(), let parsed = ObjectID.parse(text), parsed.primaryKey > 0 else {
                    throw reader.malformed("an objectID is not an object ID such as x-coredata://UUID/Person/p1")
                }
                sourceID = parsed
                sourceIDText = text
                if entity == nil {
                    guard let named = mapping.entity(named: parsed.entityName) else {
                        throw ImportError.shape("the object ID \(text) names \(parsed.entityName), which is not in the store's model")
                    }
                    entity = named
                }
                continue
            }
            try readField(key, entity: entity, into: &fields)
        }
        guard let entity else { throw ImportError.needsEntity }
        return IncomingObject(entity: entity, line: line, index: index, sourceID: sourceID, sourceIDText: sourceIDText, fields: fields)
    }

    /// One member's value. JSON an attribute holds is kept as its bytes (the column's bytes
    /// are what the file says, whatever its spacing or escapes); a composite, nested as export
    /// writes it, is read member by member under its leaves' names (`compiledTags.flavors`),
    /// so that a JSON leaf inside it is kept as bytes too.
    private mutating func readField(_ key: String, entity: EntityMapping?, depth: Int = 0,
                                    into fields: inout [(key: String, value: IncomingObject.Value)]) throws {
        if let a = entity?.attribute(key)?.attribute, a.holdsJSON {
            fields.append((key, .json(try reader.rawValue())))
        } else if let entity, entity.attribute(key) == nil, entity.isComposite(key), try reader.peekToken() == 123,
                  depth < JSONReader.maxDepth {
            var first = true
            while let member = try reader.nextKey(first: &first) {
                try readField(key + "." + member, entity: entity, depth: depth + 1, into: &fields)
            }
        } else {
            fields.append((key, .json(try reader.value())))
        }
    }
}

/// CSV whose header names the entity's attributes and to-one relationships (and
/// optionally `objectID`), one object a line.
struct CSVObjects: IncomingObjects {
    private var reader: CSVReader
    private let entity: EntityMapping
    private let header: [String]
    private let objectIDColumn: Int?
    var fileStoreUUID: String? { nil }
    var mayNameObjects: Bool { header.contains("objectID") }

    init(path: String, entity: EntityMapping) throws {
        reader = try CSVReader(path: path)
        self.entity = entity
        guard try reader.read() else { throw ImportError.empty(path: path) }
        var names: [String] = []
        for field in reader.fields {
            let name = try reader.text(field).trimmingCharacters(in: .whitespaces)
            guard name == "objectID" || entity.attribute(name) != nil || entity.relationship(name) != nil else {
                throw ImportError.unknownKey(entity: entity.name, key: name.isEmpty ? "\"\" (an empty column name)" : name)
            }
            if names.contains(name) { throw ImportError.shape("the header names \(name) twice") }
            names.append(name)
        }
        header = names
        objectIDColumn = names.firstIndex(of: "objectID")
    }

    func close() { reader.close() }

    mutating func next() throws -> IncomingObject? {
        guard try reader.read() else { return nil }
        var object = IncomingObject(entity: entity, line: reader.recordLine)
        guard reader.fields.count == header.count else {
            // A row the header does not fit is the row's fault, not the file's.
            object.problem = "it has \(reader.fields.count) fields; the header names \(header.count)"
            return object
        }
        if let column = objectIDColumn {
            let field = reader.fields[column]
            let text = try reader.text(field)
            if !text.isEmpty {
                guard let parsed = ObjectID.parse(text), parsed.primaryKey > 0 else {
                    throw ImportError.malformed(line: reader.recordLine, why: "\(text) is not an object ID such as x-coredata://UUID/Person/p1")
                }
                object.sourceID = parsed
                object.sourceIDText = text
            }
        }
        object.row = IncomingObject.Row(bytes: reader.bytes, fields: reader.fields, header: header)
        return object
    }
}
