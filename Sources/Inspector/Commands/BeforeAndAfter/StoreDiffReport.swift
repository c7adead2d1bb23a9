import ArgumentParser
import Foundation
import ManagedStore

/// How a store diff is shown, by `cdinspect diff A B` and a session's `diff --store`: in
/// JSON one document, `{"entities": [{"entity", "matchedBy", "inserted": [objects],
/// "deleted": [objects], "updated": [{"objectID", "changes": {"key": {"old", "new"}}}]}],
/// "model": …, "notCompared": […]}`, written as the changes stream in; in the other
/// formats one row per change (an inserted or deleted object whole, an updated one per
/// changed key), then what was not compared, for people.
enum StoreDiffReport {
    static let columns = ["entity", "change", "objectID", "key", "old", "new"]

    /// Shows the diff; returns whether the stores differ.
    static func show(_ diff: StoreDiff, results: Results) throws -> Bool {
        let rows = results.groupedRows(columns)
        let json = DiffJSONWriter()
        var entity = ""
        var differs = true
        var counted = (inserted: 0, updated: 0, deleted: 0)
        do { differs = try diff.run { event in
            switch event {
            case .beginEntity(let name, let matching):
                entity = name
                rows.json { json.begin(name, matchedBy: matching.description, to: $0) }
            case .inserted(let object), .deleted(let object):
                let inserted: Bool = { if case .inserted = event { return true } else { return false } }()
                if inserted { counted.inserted += 1 } else { counted.deleted += 1 }
                let value = objectValue(object)
                guard rows.add(record: {
                    .object([("entity", .string(entity)), ("change", .string(inserted ? "inserted" : "deleted")), ("object", value)])
                }, json: { json.item(value, section: inserted ? 0 : 1, to: $0) }, row: {
                    [.string(entity), .string(inserted ? "inserted" : "deleted"), .objectID(object.objectID.uri), .null,
                     inserted ? .null : value, inserted ? value : .null]
                }) else { throw Enough() }
            case .updated(let objectID, let otherID, let changes):
                counted.updated += 1
                let pairs = updatedPairs(objectID, otherID, changes)
                guard rows.add(record: { .object([("entity", .string(entity)), ("change", .string("updated"))] + pairs) },
                               json: { json.item(.object(pairs), section: 2, to: $0) },
                               rows: {
                                   changes.map { change in
                                       let (key, old, new) = flat(change)
                                       return [.string(entity), .string("updated"), .objectID(objectID.uri), .string(key), old, new]
                                   }
                               }) else { throw Enough() }
            case .endEntity:
                rows.json { json.end(to: $0) }
            }
        } } catch is Enough {
            // A receiver has what it wants.
        }
        let model = diff.modelChanges
        let modelValue: OutputValue = model.isEmpty ? .null : .array(model.map { c in
            .object([("entity", .string(c.entity)), ("property", c.property.map(OutputValue.string) ?? .null),
                     ("change", .string(c.kind.rawValue)), ("detail", .string(c.detail))])
        })
        let notCompared = OutputValue.array(diff.notCompared.map { .object([("entity", .string($0.entity)), ("reason", .string(reason($0)))]) })
        // A receiver of values gets, after the changes, what the JSON document ends with.
        _ = rows.add(record: { .object([("summary", .object([("differ", .bool(differs)), ("model", modelValue), ("notCompared", notCompared)]))]) },
                     json: { _ in }, rows: { [] })
        rows.finish(json: { json.finish(model: modelValue, notCompared: notCompared, to: $0) })
        if !model.isEmpty {
            results.note("")
            results.note("The models differ:")
            for c in model { results.note("  \(c.entity)\(c.property.map { ".\($0)" } ?? ""): \(c.detail)") }
        }
        for entry in diff.notCompared { results.note("not compared: \(entry.entity) (\(reason(entry)))") }
        // The answer's last line, as diff(1) answers with its exit status: what a person reads first.
        if differs {
            let model = model.isEmpty ? "" : ", and their models differ"
            results.note("the stores differ: \(counted.inserted) inserted, \(counted.updated) updated, \(counted.deleted) deleted\(model)")
        } else {
            results.note("no difference")
        }
        return differs
    }

    /// Why an entity was left out, with what to give when a key would let it be compared.
    static func reason(_ entry: (entity: String, reason: StoreDiff.NotCompared)) -> String {
        entry.reason == .noKey ? "\(entry.reason) (give --match \(entry.entity)=KEY)" : entry.reason.description
    }

    /// An object as fetch prints it in JSON: its ID, then its compared properties.
    static func objectValue(_ object: StoreDiff.Object) -> OutputValue {
        .object([("objectID", .objectID(object.objectID.uri))] + object.values.map { ($0.key, OutputValue($0.value)) })
    }

    static func updatedPairs(_ id: ObjectID, _ other: ObjectID, _ changes: [(key: String, change: StoreDiff.Change)]) -> [(String, OutputValue)] {
        var pairs: [(String, OutputValue)] = [("objectID", .objectID(id.uri))]
        if other.uri != id.uri { pairs.append(("otherObjectID", .objectID(other.uri))) }
        pairs.append(("changes", .object(changes.map { key, change in
            switch change {
            case .value(let old, let new): return (key, .object([("old", OutputValue(old)), ("new", OutputValue(new))]))
            case .members(let added, let removed):
                return (key, .object([("added", .array(added.map { .objectID($0.uri) })), ("removed", .array(removed.map { .objectID($0.uri) }))]))
            }
        })))
        return pairs
    }

    /// A change as one row: a to-many's removed members as the old value, its added ones as the new.
    static func flat(_ change: (key: String, change: StoreDiff.Change)) -> (String, OutputValue, OutputValue) {
        switch change.change {
        case .value(let old, let new): return (change.key, OutputValue(old), OutputValue(new))
        case .members(let added, let removed):
            return (change.key, .array(removed.map { .objectID($0.uri) }), .array(added.map { .objectID($0.uri) }))
        }
    }

    /// A receiver wants no more rows.
    struct Enough: Error {}
}

/// The JSON document of a store diff, written as the changes come: entity by entity, each
/// with its inserted, deleted and updated objects in that order.
final class DiffJSONWriter {
    private var entities = 0
    /// The section open in the current entity (0 inserted, 1 deleted, 2 updated) and how
    /// many items it has.
    private var section = 0
    private var items = 0
    private static let names = ["inserted", "deleted", "updated"]

    func begin(_ entity: String, matchedBy: String, to sink: OutputSink) {
        sink.write(entities == 0 ? "{\"entities\": [\n  {\"entity\": " : ",\n  {\"entity\": ")
        entities += 1
        OutputValue.string(entity).writeJSON(to: sink)
        sink.write(", \"matchedBy\": ")
        OutputValue.string(matchedBy).writeJSON(to: sink)
        sink.write(", \"inserted\": [")
        section = 0
        items = 0
    }

    func item(_ value: OutputValue, section target: Int, to sink: OutputSink) {
        advance(to: target, sink)
        sink.write(items == 0 ? "\n    " : ",\n    ")
        items += 1
        value.writeJSON(to: sink)
    }

    func end(to sink: OutputSink) {
        advance(to: 2, sink)
        sink.write(items == 0 ? "]}" : "\n  ]}")
    }

    private func advance(to target: Int, _ sink: OutputSink) {
        while section < target {
            sink.write(items == 0 ? "], " : "\n  ], ")
            section += 1
            items = 0
            sink.write("\"\(Self.names[section])\": [")
        }
    }

    func finish(model: OutputValue, notCompared: OutputValue, to sink: OutputSink) {
        sink.write(entities == 0 ? "{\"entities\": [], \"model\": " : "\n], \"model\": ")
        model.writeJSON(to: sink)
        sink.write(", \"notCompared\": ")
        notCompared.writeJSON(to: sink)
        sink.write("}\n")
    }
}

/// `--match` and `--entity`, as `cdinspect diff` and a session's `diff --store` take them.
public struct StoreDiffOptions: ParsableArguments {
    @Option(name: .customLong("match"), parsing: .singleValue,
            help: ArgumentHelp("Match ENTITY's objects by these attributes (stores that are not one store's copies).",
                               valueName: "entity=key[,key]"))
    public var matches: [String] = []

    @Option(name: .customLong("entity"), parsing: .singleValue, help: ArgumentHelp("Compare only this entity (repeatable).", valueName: "entity"))
    public var entities: [String] = []

    public init() {}

    /// `ENTITY=KEY[,KEY]` by entity.
    public func keys() throws -> [String: [String]] {
        var keys: [String: [String]] = [:]
        for text in matches {
            let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let names = parts.count == 2 ? parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : []
            guard parts.count == 2, !parts[0].isEmpty, !names.isEmpty, !names.contains(where: \.isEmpty) else {
                throw CommandError.usage("--match takes ENTITY=KEY[,KEY], not '\(text)'")
            }
            keys[parts[0]] = names
        }
        return keys
    }

    /// Compares `a` with `b` and shows it; a difference is a finding (exit 1, as diff(1)).
    public func compare(_ a: PersistentStore, _ b: PersistentStore, results: Results) throws {
        let diff = try StoreDiff(a, b, matches: try keys(), only: entities)
        results.flush()
        if try StoreDiffReport.show(diff, results: results) { throw StoresDiffer() }
    }
}

/// The stores differ: exit 1 after the report, as diff(1).
public struct StoresDiffer: Finding, CustomStringConvertible {
    public var description: String { "the stores differ" }
}
