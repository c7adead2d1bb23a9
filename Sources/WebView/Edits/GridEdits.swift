import Foundation
import Inspector
import ManagedStore

/// The grid's edits, on the editor's one context: a cell set (and checked at once, as
/// `validateValue(_:forKey:)` would, an edit a save would refuse taken back with its reason),
/// a new object with the entity's defaults, a delete of the selected objects once their
/// relationships' delete rules have been shown, and a to-one's choices. Everything stays
/// pending until Save, which is the one context save the object page's edits also wait for.
extension Editor {
    /// What became of a cell's edit: the value now pending, or why it was refused.
    enum CellOutcome {
        case pending(String)
        case refused(String)
    }

    /// Sets `key` of `object` (`Person/p3`, a temporary ID's URI) to `value` as `update`
    /// reads it, then checks the object as a save would; a failure on that key undoes the
    /// edit, so only values the context accepts stay pending.
    func editCell(object: String, key: String, value: String) -> CellOutcome {
        lock.withLock {
            let field = "\(ValueView.shortID(object)).\(key)"
            do {
                try run(["update", object, "\(key)=\(value)"])
            } catch {
                let message = ExitStatus.message(for: error)
                fieldErrors[field] = message
                return .refused(message)
            }
            do {
                try run(["validate", object])
            } catch ContextError.invalid(let failures) {
                if let failure = failures.first(where: { $0.key == key }) {
                    _ = try? run(["undo"])
                    let message = "\(failure.key) \(failure.problem)"
                    fieldErrors[field] = message
                    return .refused(message)
                }
            } catch {}
            fieldErrors[field] = nil
            let shown = record(object).map { GridView.editText(GridView.value($0, key)) } ?? value
            return .pending(shown)
        }
    }

    /// Inserts an object of `entity` with the model's defaults; its temporary ID's URI.
    func insertObject(_ entity: String) throws -> String {
        try lock.withLock {
            let before = Set(((try? run(["changes"]).rows) ?? []).compactMap { $0["objectID"]?.stringValue })
            try run(["insert", entity])
            let after = ((try? run(["changes"]).rows) ?? []).compactMap { $0["objectID"]?.stringValue }
            guard let id = after.first(where: { !before.contains($0) }) else { throw CommandError.usage("the new \(entity) was not registered") }
            return id
        }
    }

    /// Deletes each object, applying its relationships' delete rules; the first refusal (a
    /// deny rule) stops there and is the error, the deletes before it staying pending.
    func deleteObjects(_ objects: [String]) throws {
        try lock.withLock {
            for object in objects { try run(["delete", object]) }
        }
    }

    /// What deleting `object` will do, one line per relationship that holds objects: its
    /// delete rule and the objects it reaches, as the context will apply them.
    func deleteEffects(of object: String) -> [DeleteEffect] {
        lock.withLock {
            guard let id = ObjectID.parse(object),
                  let entity = store.mapping.entity(named: id.entityName),
                  let record = record(object) else { return [] }
            var effects: [DeleteEffect] = []
            for r in entity.relationships where !r.relationship.isTransient {
                let value = record[r.relationship.name] ?? .null
                let targets = value.items.isEmpty ? (value.stringValue.map { [$0] } ?? []) : value.items.compactMap(\.stringValue)
                guard !targets.isEmpty else { continue }
                effects.append(DeleteEffect(relationship: r.relationship.name, rule: r.relationship.deleteRule,
                                            inverse: r.relationship.inverseName, targets: targets))
            }
            return effects
        }
    }

    /// Objects of `entity` (inserted ones too, as a fetch in the context sees them) whose
    /// text attributes contain `text`: a to-one cell's choices, at most `limit`.
    func choices(of entity: String, containing text: String, limit: Int = 20) -> [(id: String, label: String)] {
        lock.withLock {
            guard let mapping = store.mapping.entity(named: entity) else { return [] }
            let labels = mapping.storedAttributes.map(\.attribute).filter { $0.type == .string }.map(\.name)
            var words = ["fetch", mapping.name, "--limit", String(limit)]
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, !labels.isEmpty {
                let quoted = "\"" + trimmed.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
                words.append("--where=" + labels.prefix(3).map { "\($0) CONTAINS[cd] \(quoted)" }.joined(separator: " OR "))
            }
            let rows = (try? run(words).rows) ?? []
            return rows.compactMap { row in
                guard let id = row["objectID"]?.stringValue else { return nil }
                let label = labels.lazy.compactMap { row[$0]?.stringValue }.first ?? ""
                return (ValueView.shortID(id), label)
            }
        }
    }

    /// The pending state of an entity's objects, for its grid: each changed object's
    /// pending values by key, and the objects inserted (their records, as `get` shows them).
    func pendingGrid(_ entity: String) -> (values: [String: [String: OutputValue]], deleted: Set<String>, inserted: [OutputValue]) {
        lock.withLock {
            var values: [String: [String: OutputValue]] = [:]
            var deleted: Set<String> = []
            var inserted: [OutputValue] = []
            for row in (try? run(["changes"]).rows) ?? [] {
                guard let id = row["objectID"]?.stringValue, let change = row["change"]?.stringValue else { continue }
                guard ObjectID.parse(id)?.entityName == entity else { continue }
                if change == "deleted" {
                    deleted.insert(ValueView.shortID(id))
                    continue
                }
                guard let record = record(id) else { continue }
                if change == "inserted" {
                    inserted.append(record)
                    continue
                }
                var pending: [String: OutputValue] = [:]
                for key in Self.changedKeys(row) { pending[key] = GridView.value(record, key) }
                values[ValueView.shortID(id)] = pending
            }
            return (values, deleted, inserted)
        }
    }

}

/// One relationship's share of a delete: its rule and the objects it holds.
struct DeleteEffect {
    let relationship: String
    let rule: DeleteRule
    let inverse: String?
    let targets: [String]

    /// The sentence the confirmation shows.
    var sentence: String {
        let count = targets.count
        let objects = "\(count) object\(count == 1 ? "" : "s") (\(targets.prefix(5).map(ValueView.shortID).joined(separator: ", "))\(count > 5 ? ", …" : ""))"
        switch rule {
        case .cascade: return "\(relationship) (cascade): deletes \(objects) too, and whatever their own rules reach"
        case .nullify: return "\(relationship) (nullify): takes it out of \(inverse.map { "the \($0) of " } ?? "")\(objects)"
        case .deny: return "\(relationship) (deny): the delete is refused while it holds \(objects)"
        case .noAction: return "\(relationship) (no action): leaves \(objects) pointing at an object that is gone"
        }
    }
}

// MARK: The grid's requests

extension Editor {
    /// A cell's edit from the grid's script (answered in JSON: the pending value or the
    /// refusal, and the count of pending changes), a new object, or a delete: asked first
    /// (the page of what the delete rules will do), then done on `confirm=yes`.
    func gridChange(_ route: Route, _ request: WebRequest, frame: Layout.Frame) -> WebResponse {
        switch route {
        case .edit:
            guard let object = request.field("object"), ObjectID.parse(object) != nil, let key = request.field("key"), !key.isEmpty,
                  !key.contains("="), let value = request.field("value") else {
                return .json(OutputValue.object([("ok", .bool(false)), ("error", .string("An edit gives an object (Person/p3), a key and a value."))]).jsonText, status: 400)
            }
            let outcome = editCell(object: object, key: key, value: value)
            let count = Int64(pendingCount)
            switch outcome {
            case .pending(let shown):
                return .json(OutputValue.object([("ok", .bool(true)), ("value", .string(shown)), ("pending", .integer(count))]).jsonText)
            case .refused(let why):
                // A refusal is the answer to a request that was understood (200, as a
                // form's page with its error is), not a failed request in the console.
                return .json(OutputValue.object([("ok", .bool(false)), ("error", .string(why)), ("pending", .integer(count))]).jsonText)
            }
        case .insert:
            guard let entity = request.field("entity"), let mapping = store.mapping.entity(named: entity) else {
                return Refusals.page(400, "An insert names an entity of the model.")
            }
            do {
                _ = try insertObject(mapping.name)
            } catch {
                return Refusals.page(400, ExitStatus.message(for: error))
            }
            return .redirect(to: Paths.entity(mapping.name) + "#new")
        case .delete:
            let objects = request.fields("object").filter { ObjectID.parse($0) != nil }
            let back = request.field("back").flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") ? $0 : nil } ?? Paths.changes
            guard !objects.isEmpty else { return Refusals.page(400, "Select the objects to delete first (the boxes beside them).") }
            guard request.field("confirm") == "yes" else {
                return .html(Layout(frame: frame).page(title: "Delete", crumbs: [("store", Paths.store), ("delete", nil)], twin: nil,
                                                       body: deletePage(objects, back: back, frame: frame)))
            }
            do {
                try deleteObjects(objects)
            } catch {
                lock.withLock { lastOutcome = ("Not deleted: " + ExitStatus.message(for: error), true) }
                return .redirect(to: Paths.changes)
            }
            return .redirect(to: back)
        default:
            return Refusals.page(404, "No such change.")
        }
    }

    /// The delete's confirmation: per object, what each relationship's rule will do.
    func deletePage(_ objects: [String], back: String, frame: Layout.Frame) -> HTML {
        var body: HTML = "<h1>Delete \(objects.count) object\(objects.count == 1 ? "" : "s")?</h1><p>Nothing changes in the store until Save; the delete stays pending with the other changes.</p><ul class=\"effects\">"
        for object in objects {
            let effects = deleteEffects(of: object)
            body += "<li><strong>\(ValueView.shortID(object))</strong>"
            if effects.isEmpty {
                body += ": no relationship holds an object"
            } else {
                body += "<ul>" + HTML.joined(effects.map { "<li class=\"rule-\($0.rule.rawValue)\">\($0.sentence)</li>" as HTML }, separator: "") + "</ul>"
            }
            body += "</li>"
        }
        body += "</ul>"
        let hidden = HTML.joined(objects.map { "<input type=\"hidden\" name=\"object\" value=\"\($0)\">" as HTML }, separator: "")
        body += """
            <form method="post" action="\(Paths.delete)"><input type="hidden" name="csrf" value="\(frame.csrfToken)">\(hidden)\
            <input type="hidden" name="back" value="\(back)"><input type="hidden" name="confirm" value="yes">\
            <button class="danger" id="confirm-delete">Delete</button> <a href="\(back)">Keep them</a></form>
            """
        return body
    }

    /// `/-/choices?entity=Person&q=da`: a to-one cell's choices, as JSON.
    func choicesAnswer(_ request: WebRequest) -> WebResponse {
        guard let entity = request.query("entity"), store.mapping.entity(named: entity) != nil else {
            return .json(OutputValue.object([("error", .string("choices name an entity of the model"))]).jsonText, status: 400)
        }
        let found = choices(of: entity, containing: request.query("q") ?? "")
        return .json(OutputValue.array(found.map { .object([("id", .string($0.id)), ("label", .string($0.label))]) }).jsonText)
    }
}
