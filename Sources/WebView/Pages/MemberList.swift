import Foundation
import Inspector
import ManagedStore

/// The objects of one to-many relationship of one object, a page of them at a time: fetched
/// from the destination entity through the inverse (`owner == "Person/p3"`, or `ANY people ==
/// …` for a many-to-many), paged by key; a relationship without an inverse is read from the
/// object itself (`--keys cars`) and paged by position. Each member is a link, with the
/// destination's name-like attribute beside it when it has one.
struct MemberList {
    var count: Int64?
    var inverse: String?
    var members: [(id: String, label: OutputValue?)]
    var more: Bool
    /// Where the next page starts (`after` for a page by key, a position otherwise).
    var next: String?
    let relationship: String
    let destination: String

    var value: OutputValue {
        .object([("count", count.map(OutputValue.integer) ?? .null), ("inverse", inverse.map(OutputValue.string) ?? .null),
                 ("members", .array(members.map { .object([("objectID", .objectID($0.id)), ("label", $0.label ?? .null)]) })),
                 ("more", .bool(more)), ("next", next.map(OutputValue.string) ?? .null)])
    }

    static func read(_ r: RelationshipMapping, of objectID: ObjectID, in entity: EntityMapping, count: Int64?, limit: Int,
                     after: String?, page: PageRequest) throws -> MemberList {
        let rel = r.relationship
        let id = "\(objectID.entityName)/p\(objectID.primaryKey)"
        let destination = try? page.store.entity(rel.destinationEntityName)
        let label = destination.flatMap(labelKey)
        var list = MemberList(count: count, inverse: rel.inverseName.map { "\(rel.destinationEntityName).\($0)" }, members: [], more: false,
                              next: nil, relationship: rel.name, destination: rel.destinationEntityName)
        if let inverseName = rel.inverseName, let destination,
           let inverse = destination.relationship(inverseName)?.relationship {
            let predicate = inverse.isToMany ? "ANY \(inverseName) == \"\(id)\"" : "\(inverseName) == \"\(id)\""
            var fetch = try FetchCommand.parse([destination.name, "--where=" + predicate, "--after=" + (after ?? "start"), "--limit", String(limit + 1)])
            fetch.shape.keyList.value = label.map { [$0] } ?? []
            fetch.shape.readsShownKeysOnly.value = true
            let rows = try CommandAnswer.run(command: fetch, store: page.store).rows
            list.more = rows.count > limit
            list.members = rows.prefix(limit).compactMap { row in row["objectID"]?.stringValue.map { ($0, label.flatMap { row[$0] }) } }
            if list.more, let last = list.members.last { list.next = ValueView.shortID(last.id) }
            return list
        }
        // No inverse: the object's own list of them.
        var fetch = try FetchCommand.parse([entity.name, "--where=SELF == \"\(id)\""])
        fetch.shape.keyList.value = [rel.name]
        fetch.shape.readsShownKeysOnly.value = true
        let ids = (try CommandAnswer.run(command: fetch, store: page.store).rows.first?[rel.name]?.items ?? []).compactMap(\.stringValue)
        let start = after.flatMap(Int.init) ?? 0
        list.count = Int64(ids.count)
        list.members = ids.dropFirst(start).prefix(limit).map { ($0, nil) }
        list.more = ids.count > start + limit
        if list.more { list.next = String(start + limit) }
        return list
    }

    /// The attribute that names an object of `entity`, for the lists of links: `name`,
    /// `title`, … or its first string attribute.
    static func labelKey(_ entity: EntityMapping) -> String? {
        let strings = entity.storedAttributes.filter { $0.attribute.type == .string }.map(\.attribute.name)
        return ["name", "title", "displayName", "label", "identifier"].first(where: strings.contains) ?? strings.first
    }

    /// The members as links, with the count and the link to all of them.
    func html(objectID: ObjectID) -> HTML {
        let total = count.map { "\($0) object\($0 == 1 ? "" : "s")" } ?? "objects"
        guard !members.isEmpty else { return "<span class=\"muted\">\(total == "0 objects" ? "none" : total)</span>" }
        let items = HTML.joined(members.map { member in
            let link = Paths.object(member.id).map { "<a href=\"\($0)\">\(ValueView.shortID(member.id))</a>" as HTML } ?? "\(member.id)"
            let label: HTML = member.label.map { $0 == .null ? .empty : " <span class=\"muted\">\(ValueView.cut($0.text, 80))</span>" } ?? .empty
            return "<li>\(link)\(label)</li>"
        })
        let all = Paths.members(objectID.entityName, objectID.primaryKey, relationship)
        return "<span>\(total)</span> <a href=\"\(all)\">all ›</a><ul class=\"tree\">\(items)</ul>"
    }
}

/// `/Person/p3/cars`: all the objects of one to-many relationship, a page at a time.
struct MembersPage {
    let page: PageRequest
    let entityName: String
    let key: Int64
    let relationship: String
    static let size = 100

    func response() throws -> WebResponse {
        let entity = try page.entity(entityName)
        guard let r = entity.relationship(relationship), r.relationship.isToMany else {
            throw PageNotFound(description: "\(entity.name) has no to-many relationship \(relationship).")
        }
        let objectID = ObjectID(storeUUID: page.store.uuid, entityName: entity.name, primaryKey: key)
        var fetch = try FetchCommand.parse([entity.name, "--where=SELF == \"\(entity.name)/p\(key)\""])
        fetch.shape.keyList.value = [r.relationship.name + ".@count"]
        fetch.shape.readsShownKeysOnly.value = true
        guard let record = try CommandAnswer.run(command: fetch, store: page.store).rows.first else {
            throw PageNotFound(description: "\(entity.name)/p\(key) is not in the store.")
        }
        let after = page.request.query("after").flatMap { $0.isEmpty ? nil : $0 }
        let list = try MemberList.read(r, of: objectID, in: entity, count: record[r.relationship.name + ".@count"]?.intValue, limit: Self.size,
                                       after: after, page: page)
        let objectPath = Paths.object(entity.name, key)
        return try page.answer(title: "\(entity.name)/p\(key) \(relationship)",
                               crumbs: [page.storeCrumb, (entity.name, Paths.entity(entity.name)), ("p\(key)", objectPath), (relationship, nil)],
                               value: list.value) {
            var body: HTML = "<h1><a href=\"\(objectPath)\">\(entity.name)/p\(key)</a> · \(relationship)</h1>"
            body += "<p>\(list.count.map { "\($0)" } ?? "") \(list.destination) object(s)"
            if let inverse = list.inverse { body += ", whose \(inverse.split(separator: ".").last.map(String.init) ?? "") leads back here" }
            body += ".</p>" + list.html(objectID: objectID)
            body += "<p class=\"pager\">"
            if after != nil { body += "<a href=\"\(Paths.members(entity.name, key, relationship))\">first page</a>" }
            if let next = list.next { body += "<a rel=\"next\" href=\"\(Paths.members(entity.name, key, relationship, query: [("after", next)]))\">next ›</a>" }
            return body + "</p>"
        }
    }
}
