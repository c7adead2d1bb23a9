import Foundation
import Inspector
import ManagedStore

/// `/Person/p3`: one object. Every attribute as the command line shows it (composites,
/// SwiftData's JSON and decoded archives as trees); binary values previewed from their first
/// bytes (`BinaryPreview`), never read whole; to-one relationships as links, to-many ones as
/// their count and their first objects, with the inverse named and all of them a page away;
/// the transactions of the persistent history that touched it; on a mirrored store, the
/// CloudKit story of it. With `--write`, each attribute can be edited into the page's context.
struct ObjectPage {
    let page: PageRequest
    let entityName: String
    let key: Int64

    /// Members of a to-many shown on the object's page; the rest are a page away.
    static let membersShown = 20

    func response() throws -> WebResponse {
        let entity = try page.entity(entityName)
        let id = "\(entity.name)/p\(key)"
        let columns = EntityPage.columns(of: entity, model: page.store.model)
        var fetch = try FetchCommand.parse([entity.name, "--where=SELF == \"\(id)\""])
        fetch.shape.keyList.value = columns.filter { !$0.bytes }.map(\.key)
        fetch.shape.readsShownKeysOnly.value = true
        let fetched = try CommandAnswer.run(command: fetch, store: page.store)
        guard let record = fetched.rows.first, let uri = record["objectID"]?.stringValue else {
            throw PageNotFound(description: "\(id) is not in the store.")
        }
        let objectID = ObjectID(storeUUID: page.store.uuid, entityName: ObjectID.parse(uri)?.entityName ?? entity.name, primaryKey: key)
        let actual = (try? page.store.entity(objectID.entityName)) ?? entity

        // Binary values: their first bytes only.
        var previews: [(String, BinaryPreview)] = []
        for column in columns where column.bytes {
            let attribute = actual.attribute(column.key)?.attribute
            let head = try BlobHead.read(objectID, key: column.key, bytes: BinaryPreview.headBytes, store: page.store)
            previews.append((column.key, BinaryPreview(head: head, attribute: attribute, objectID: objectID, key: column.key, store: page.store)))
        }
        // To-many relationships: the first members, as links.
        var lists: [(RelationshipMapping, MemberList)] = []
        for r in actual.relationships where r.relationship.isToMany && !r.relationship.isTransient {
            lists.append((r, try MemberList.read(r, of: objectID, in: actual, count: record[r.relationship.name + ".@count"]?.intValue,
                                                 limit: Self.membersShown, after: nil, page: page)))
        }
        let history = try historyRows(objectID)
        // Its versions across the saves the -wal holds, where it holds any.
        let versions = (try? StoreTimeline.read(path: page.store.path).commits.isEmpty) == false
            ? try ObjectVersions.read(objectID, store: page.store) : []
        let cloudKit = try? cloudKitStory(objectID)
        let pending = page.site.editor?.pendingValues(objectID) ?? [:]

        var value: [(String, OutputValue)] = [("object", record)]
        value.append(("binary", .object(previews.map { ($0.0, $0.1.value) })))
        value.append(("relationships", .object(lists.map { ($0.0.relationship.name, $0.1.value) })))
        if let history { value.append(("history", .array(history))) }
        if let past = page.pastGeneration { value.append(("generation", .string(past))) }
        if !versions.isEmpty {
            value.append(("versions", .array(versions.map { v in
                .object([("generation", .string(v.token)), ("change", .string(v.change.rawValue)), ("version", v.version.map(OutputValue.integer) ?? .null)])
            })))
        }
        if let cloudKit { value.append(("cloudkit", cloudKit)) }
        if !pending.isEmpty { value.append(("pending", .object(pending.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))) }

        // A past generation is read, never edited.
        let editor = page.pastGeneration == nil ? page.site.editor : nil
        return try page.answer(title: ValueView.shortID(uri), crumbs: [page.storeCrumb, (actual.name, Paths.entity(actual.name)), ("p\(key)", nil)],
                               value: .object(value), attributes: [("data-live", "object"), ("data-object", uri)]) {
            var body: HTML = "<h1>\(ValueView.shortID(uri))</h1><p class=\"muted mono\">\(uri)</p>"
            if let past = page.pastGeneration {
                body += "<p class=\"notice\">As it was at \(past), a past save the store's files hold: "
                    + "<a href=\"\(Paths.object(actual.name, key))\">the object now</a> · <a href=\"\(Paths.generations)\">every save</a></p>"
            }
            if actual.name != entity.name { body += "<p class=\"muted\">A \(actual.name), a sub-entity of \(entity.name).</p>" }
            body += "<h2>Attributes</h2><dl class=\"record\">"
            for column in columns where !column.key.hasSuffix(".@count") && actual.relationship(column.key) == nil {
                let shown: HTML
                if let preview = previews.first(where: { $0.0 == column.key })?.1 {
                    shown = preview.html
                } else {
                    shown = ValueView.html(GridView.value(record, column.key), characters: ValueView.pageCharacters)
                }
                var edit: HTML = .empty
                if let editor, !column.bytes, actual.attribute(column.key)?.attribute.isDerived == false {
                    edit = editor.form(objectID: objectID, key: column.key, pending: pending[column.key], layout: page.layout)
                }
                body += "<dt id=\"\(column.key)\">\(column.key)</dt><dd data-key=\"\(column.key)\">\(shown)\(edit)</dd>"
            }
            body += "</dl>"
            let toOnes = actual.relationships.filter { !$0.relationship.isToMany && !$0.relationship.isTransient }
            let toManys = lists
            if !toOnes.isEmpty || !toManys.isEmpty { body += "<h2>Relationships</h2><dl class=\"record\">" }
            for r in toOnes {
                let target = record[r.relationship.name] ?? .null
                body += "<dt>\(r.relationship.name)</dt><dd data-key=\"\(r.relationship.name)\">\(ValueView.html(target))"
                    + inverseNote(r) + "</dd>"
            }
            for (r, list) in toManys {
                body += "<dt>\(r.relationship.name)</dt><dd>\(list.html(objectID: objectID))\(inverseNote(r))</dd>"
            }
            if !toOnes.isEmpty || !toManys.isEmpty { body += "</dl>" }
            if let history {
                body += "<h2>History</h2>" + historyHTML(history)
            }
            if !versions.isEmpty {
                body += "<h2>Versions</h2><p class=\"muted\">Each save the store's -wal holds that inserted, updated or deleted it.</p><ul>"
                for v in versions {
                    let at = v.change == .deleted ? "\(v.change.rawValue) at \(v.token)" : "\(v.change.rawValue) at \(v.token) (Z_OPT \(v.version ?? 0))"
                    body += v.change == .deleted ? "<li>\(at)</li>"
                        : "<li><a href=\"\(Paths.object(actual.name, key, generation: v.token))\">\(at)</a></li>"
                }
                body += "</ul>"
            }
            if let cloudKit {
                body += "<h2>CloudKit</h2>" + ValueView.html(cloudKit, characters: ValueView.pageCharacters)
            }
            return body
        }
    }

    /// "(inverse: Car.owner)", or that it has none.
    func inverseNote(_ r: RelationshipMapping) -> HTML {
        guard let inverse = r.relationship.inverseName else { return " <span class=\"muted\">(no inverse)</span>" }
        return " <span class=\"muted\">(inverse: \(r.relationship.destinationEntityName).\(inverse))</span>"
    }

    /// The changes of the persistent history to this object, newest last; nil on a store
    /// without history.
    func historyRows(_ objectID: ObjectID) throws -> [OutputValue]? {
        guard page.store.schema.hasPersistentHistory else { return nil }
        return try page.run(["history", "--changes", "--object=\(objectID.entityName)/p\(objectID.primaryKey)"], rowLimit: 200).rows
    }

    func historyHTML(_ rows: [OutputValue]) -> HTML {
        guard !rows.isEmpty else { return "<p class=\"muted\">No transaction of the history touched it.</p>" }
        var table: HTML = "<table><tr><th>transaction</th><th>time</th><th>author</th><th>change</th><th>keys</th></tr>"
        for row in rows {
            let transaction = row["transaction"] ?? row
            let change = row["change"] ?? row
            let token = transaction["token"]?.intValue
            let tokenCell: HTML = token.map { "<a href=\"\(Paths.transaction($0))\">\($0)</a>" } ?? "\(transaction["token"]?.text ?? "")"
            let keys = (change["updated"]?.items ?? []).map(\.text).joined(separator: ", ")
            table += "<tr><td>\(tokenCell)</td><td>\(transaction["timestamp"]?.text ?? "")</td><td>\(transaction["author"].map { ValueView.html($0) } ?? .empty)</td>"
                + "<td>\(change["type"]?.text ?? "")</td><td>\(keys)</td></tr>"
        }
        return table + "</table>"
    }

    /// `cloudkit why` for the object, on a mirrored store; nil elsewhere.
    func cloudKitStory(_ objectID: ObjectID) throws -> OutputValue? {
        guard page.store.schema.table("ANSCKRECORDMETADATA") != nil else { return nil }
        return try page.run(["cloudkit", "why", "\(objectID.entityName)/p\(objectID.primaryKey)"]).json
    }
}
