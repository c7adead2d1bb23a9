import Foundation
import ArgumentParser
import ManagedStore

/// `--where`, `--arg` and `--var`, as fetch, count and explain take them.
public struct PredicateOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("An NSPredicate format string, e.g. 'age > 30 AND name BEGINSWITH[c] \"d\"', or Swift: '#Predicate<Person> { $0.age > 30 }' or '{ $0.age > 30 }'.", valueName: "predicate"))
    public var `where`: String?

    @Option(name: .long, parsing: .singleValue,
            help: ArgumentHelp("Fills the next %@, %K, %d or %f, in order: a literal such as '\"John\"', 30, {1,2}, a date written ISO 8601 without quotes (2025-08-01, 2025-08-01T09:30:00Z: the NSDate an app passes) or CAST(-347155200, \"NSDate\") (seconds since 2001-01-01), or a key path for %K. For a Swift predicate: NAME=VALUE gives a captured name its value, a Swift literal.", valueName: "value"))
    public var arg: [String] = []

    @Option(name: .long, parsing: .singleValue,
            help: ArgumentHelp("Gives $NAME a value, written as a literal: --var 'LOWER=18'; for a Swift predicate, a captured name and a Swift literal: --var 'minAge=18'.", valueName: "name=value"))
    public var `var`: [String] = []

    /// The format specifiers' values as typed values (the MCP server's JSON `arguments`),
    /// in place of `--arg`.
    public var typedArguments = Preset<[PredicateArgument]>()

    public init() {}

    /// The parsed predicate, or nil when there is none. The text is an NSPredicate format
    /// string, or Swift (`#Predicate<Person> { … }`, `{ $0.… }`) read for `entity` with the
    /// types `model` gives; a Swift predicate's captured names take their values from
    /// `--var NAME=VALUE` or `--arg NAME=VALUE`, written as Swift literals. With `store`, an
    /// enum case read by its name that no row of the entity holds is warned of
    /// (`EnumCaseCheck`).
    public func predicate(entity: String?, model: ManagedObjectModel?, store: PersistentStore? = nil,
                          warn: (String) -> Void) throws -> ManagedStore.Predicate? {
        guard let text = `where` else {
            if !arg.isEmpty { throw CommandError.usage("--arg fills a predicate's %@; give the predicate with --where") }
            return nil
        }
        if SwiftPredicateReader.isSwift(text) {
            var variables: [String: PredicateValue] = [:]
            for (option, bindings) in [("--var", `var`), ("--arg", arg)] {
                for (name, written) in try Self.bindings(bindings, option: option) {
                    variables[name] = try SwiftPredicateReader.literal(written, named: name)
                }
            }
            let reading = try SwiftPredicateReader.read(text, entity: entity, model: model, variables: variables)
            if let store, let entity {
                for warning in try EnumCaseCheck.warnings(reading.enumCases, entity: entity, store: store) { warn(warning) }
            }
            return reading.predicate
        }
        var variables: [String: String] = [:]
        for (name, value) in try Self.bindings(`var`, option: "--var") { variables[name] = value }
        if let typed = typedArguments.value {
            return try PredicateParser.parse(text, arguments: typed, variables: variables)
        }
        let used = PredicateParser.specifierCount(text)
        if arg.count > used {
            warn("\(arg.count - used) --arg value\(arg.count - used == 1 ? " is" : "s are") not used: the predicate has \(used) format specifier\(used == 1 ? "" : "s") outside quotes")
        }
        return try PredicateParser.parse(text, written: arg, variables: variables)
    }

    /// `NAME=VALUE` pairs; a leading `$` on the name is dropped.
    static func bindings(_ list: [String], option: String) throws -> [(String, String)] {
        try list.map { binding in
            guard let eq = binding.firstIndex(of: "="), eq != binding.startIndex else {
                throw CommandError.usage("\(option) takes NAME=VALUE here, e.g. \(option) 'minAge=18'")
            }
            var name = String(binding[..<eq])
            if name.hasPrefix("$") { name.removeFirst() }
            return (name, String(binding[binding.index(after: eq)...]))
        }
    }

    var text: String { `where` ?? "" }
}

/// What fetch and explain share: the request's shape beyond its predicate.
public struct FetchShapeOptions: ParsableArguments {
    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Sort by KEY (a key path through to-one relationships), ascending or :desc; repeatable.", valueName: "key[:desc]"))
    public var sort: [String] = []

    // Counts parse unconditionally, so that `--limit -3` is refused for being negative
    // rather than taken for an option, and say why a value is refused.
    @Option(name: .long, parsing: .unconditional, help: "Return at most N objects (0: no limit, as a fetchLimit of 0 means).",
            transform: ObjectCount.parse)
    public var limit: Int?

    @Option(name: .long, parsing: .unconditional, help: "Skip the first N objects.", transform: ObjectCount.parse)
    public var offset: Int?

    @Option(name: .long, help: ArgumentHelp("Page by key: only the objects after OBJECT (Entity/pN) in the order of the sort key (at most one), then the primary key; 'start' for the first such page. However far into the table, a page reads only its own rows, where --offset reads every row before it.", valueName: "object"))
    public var after: String?

    @Option(name: .long, help: ArgumentHelp("Properties to return, comma-separated: attributes, to-one relationships, to-one key paths such as owner.name, and to-many relationships as cars.@count (the number) or cars (the object IDs; not with --as dicts); 'all' for every attribute and relationship, to-manys included.", valueName: "key,…"))
    public var keys: String?

    /// The keys as a list (the MCP server's JSON array), in place of `--keys`.
    public var keyList = Preset<[String]>()
    /// Read only the keys shown, not the whole row (set by the web view, never on a command
    /// line): a page of objects with 100 MB photos reads none of them. Its session ends with
    /// the command, so no context keeps the partial rows.
    public var readsShownKeysOnly = Preset<Bool>()

    @Option(name: .customLong("as"), help: ArgumentHelp("Result type: objects (default), ids, dicts or count. explain also writes the fetch as code to paste: swift (#Predicate), fetch-descriptor, nspredicate or fetch-request.", valueName: "type"))
    public var resultType: String?

    @Option(name: .long, parsing: .unconditional, help: "Fetch object IDs first, then the objects in batches of N (Core Data's fetchBatchSize).",
            transform: ObjectCount.parse)
    public var batchSize: Int?

    public init() {}

    func request(entity: String, predicate: PredicateOptions, store: PersistentStore, warn: (String) -> Void) throws -> FetchRequest {
        var sorts: [FetchRequest.SortDescriptor] = []
        for text in sort {
            guard let descriptor = FetchRequest.SortDescriptor(parsing: text) else {
                throw CommandError.usage("--sort takes KEY, KEY:asc or KEY:desc, not '\(text)'")
            }
            sorts.append(descriptor)
        }
        var type = FetchRequest.ResultType.objects
        if let resultType {
            guard let parsed = FetchRequest.ResultType(rawValue: resultType) else {
                throw CommandError.usage("--as takes objects, ids, dicts or count, not '\(resultType)'")
            }
            type = parsed
        }
        var keyList = try keyList.value ?? keys.map { text -> [String] in
            let list = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !list.isEmpty else { throw CommandError.usage("--keys takes a comma-separated list of properties") }
            return list
        }
        // `all`: every attribute and relationship of the entity, inherited ones included, in
        // the model's order (to-manys as object IDs; not with --as dicts, which cannot hold them).
        if let list = keyList, list.contains("all"), let mapped = store.mapping.entity(named: entity), mapped.attribute("all") == nil,
           mapped.relationship("all") == nil {
            let every = mapped.attributes.filter { !$0.attribute.isTransient }.map(\.attribute.name)
                + mapped.relationships.filter { !$0.relationship.isTransient && (type != .dicts || !$0.relationship.isToMany) }.map(\.relationship.name)
            keyList = list.flatMap { $0 == "all" ? every : [$0] }
        }
        var request = FetchRequest(entityName: entity, predicate: try predicate.predicate(entity: entity, model: store.model, store: store, warn: warn),
                                   predicateText: predicate.text, sortDescriptors: sorts, fetchLimit: limit == 0 ? nil : limit, fetchOffset: offset,
                                   propertiesToFetch: keyList, resultType: type, batchSize: batchSize)
        request.readsPropertiesToFetchOnly = readsShownKeysOnly.value ?? false
        if let after {
            guard offset == nil else { throw CommandError.usage("--after and --offset are two ways to page: give one") }
            if after == "start" {
                request.after = .start
            } else {
                guard let id = ObjectID.parse(after) else {
                    throw CommandError.usage("--after takes an object ID (Person/p3) or start, not '\(after)'")
                }
                let entityName = try store.entity(entity).name
                request.after = try KeysetPosition.after(ObjectID(storeUUID: store.uuid, entityName: id.entityName, primaryKey: id.primaryKey),
                                                         in: FetchRequest(entityName: entityName, sortDescriptors: sorts), store: store)
            }
        }
        return request
    }
}

/// A number of objects given on the command line (`--limit`, `--offset`, `--batch-size`).
enum ObjectCount {
    static func parse(_ text: String) throws -> Int {
        guard let n = Int(text) else {
            let digits = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-") }
            throw CommandError.usage(digits ? "too large a number" : "not a whole number")
        }
        guard n >= 0 else { throw CommandError.usage("a count cannot be negative") }
        return n
    }
}

/// `--timeout SECONDS`: a finite number, zero or more.
enum Seconds {
    static func parse(_ text: String) throws -> Double {
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
            throw CommandError.usage("--timeout takes a number of seconds, not '\(text)'")
        }
        return seconds
    }
}
