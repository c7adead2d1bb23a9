import Foundation
import Inspector
import ManagedStore

/// `/Person`: an entity's objects as a grid. Columns are the attributes (a composite's by its
/// elements), the to-one relationships as links and the to-many ones as counts. Paged by key
/// (`fetch --after`), never by OFFSET: the hundredth page reads its own rows only. Sortable by
/// any attribute (the column headers), filtered by a predicate (NSPredicate or Swift; an error
/// shows its caret), with the count (bounded, then "10,000+"), the SQL one click away, and the
/// query as CSV or JSON (`/Person.csv`, `/Person.json`).
struct EntityPage {
    let page: PageRequest
    let entityName: String

    static let defaultSize = 100
    static let maximumSize = 1000
    /// Counted up to this many; past it, the page says "10,000+" and counts all on request.
    static let countLimit = 10_000

    /// A column of the grid: its key (for `--keys`) and whether it is shown as a link to the
    /// object instead of its value (bytes, which the object page previews).
    struct Column {
        let key: String
        let heading: String
        let sortable: Bool
        let bytes: Bool
    }

    func response() throws -> WebResponse {
        let entity = try page.entity(entityName)
        let name = entity.name
        let request = page.request
        let predicate = request.query("where").flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        let sort = request.query("sort").flatMap { $0.isEmpty ? nil : $0 }
        let after = request.query("after").flatMap { $0.isEmpty ? nil : $0 }
        let size = try pageSize(request.query("size"))
        let columns = Self.columns(of: entity, model: page.store.model)
        // `--option=value`: a value that starts with a dash stays a value.
        var filter: [String] = [name]
        if let predicate { filter.append("--where=" + predicate) }
        if let sort { filter.append("--sort=" + sort) }

        if page.form == .csv { return download(filter) }

        var objects: [OutputValue] = []
        var more = false
        var error: String?
        var count: OutputValue = .null
        var sql: OutputValue = .null
        var warnings: [String] = []
        do {
            var fetch = try FetchCommand.parse(filter + ["--after=" + (after ?? "start"), "--limit", String(size + 1)])
            fetch.shape.keyList.value = columns.filter { !$0.bytes }.map(\.key)
            fetch.shape.readsShownKeysOnly.value = true
            let fetched = try CommandAnswer.run(command: fetch, store: page.store)
            warnings += fetched.warnings
            objects = fetched.rows
            more = objects.count > size
            if more { objects.removeLast() }
            objects = try withLengths(objects, columns)
            // Counted up to the limit: the store reads at most that many rows.
            let counted = try page.run(["fetch"] + filter.filter { !$0.hasPrefix("--sort=") } + ["--as", "count", "--limit", String(Self.countLimit + 1)])
            count = counted.json["count"] ?? .null
            sql = try page.run(["explain"] + filter + ["--after=" + (after ?? "start"), "--limit", String(size + 1)]).json
        } catch let failure as PredicateFormatError {
            error = ExitStatus.message(for: failure)
        } catch let failure as FetchError {
            error = ExitStatus.message(for: failure)
        } catch let failure as CommandError {
            error = ExitStatus.message(for: failure)
        }
        let counted = count.intValue.map { Int($0) }
        let countText = counted.map { $0 > Self.countLimit ? "\(Self.countLimit.groupedDigits)+" : $0.groupedDigits } ?? ""
        let next: String? = more ? objects.last?["objectID"]?.stringValue.flatMap { ValueView.shortID($0) } : nil
        let value = OutputValue.object([
            ("entity", .string(name)), ("where", predicate.map(OutputValue.string) ?? .null), ("sort", sort.map(OutputValue.string) ?? .null),
            ("after", after.map(OutputValue.string) ?? .null), ("count", count), ("countLimited", .bool((counted ?? 0) > Self.countLimit)),
            ("sql", sql), ("objects", .array(objects)), ("next", next.map(OutputValue.string) ?? .null),
            ("error", error.map(OutputValue.string) ?? .null), ("warnings", .array(warnings.map(OutputValue.string))),
        ])
        let query = { (extra: [(String, String)]) -> [(String, String)] in
            (predicate.map { [("where", $0)] } ?? []) + (sort.map { [("sort", $0)] } ?? []) + (size != Self.defaultSize ? [("size", String(size))] : []) + extra
        }
        return try page.answer(title: name, crumbs: [page.storeCrumb, (name, nil)], value: value, status: error == nil ? 200 : 400,
                               attributes: [("data-live", "grid"), ("data-entity", name)]) {
            var body: HTML = "<h1>\(name)</h1>"
            if let parent = entity.superentityName { body += "<p class=\"muted\">A sub-entity of <a href=\"\(Paths.entity(parent))\">\(parent)</a>.</p>" }
            let subs = page.store.model.subentities(of: name).map(\.name)
            if !subs.isEmpty {
                body += "<p class=\"muted\">Its objects include those of " + HTML.joined(subs.map { "<a href=\"\(Paths.entity($0))\">\($0)</a>" as HTML }, separator: ", ") + ".</p>"
            }
            body += """
                <form class="query" method="get" action="\(Paths.entity(name))">
                <label for="where">where</label> <input type="text" id="where" name="where" value="\(predicate ?? "")" placeholder="age &gt; 30 AND name BEGINSWITH &quot;d&quot;, or #Predicate&lt;\(name)&gt; { $0.age &gt; 30 }">
                \(sort.map { "<input type=\"hidden\" name=\"sort\" value=\"\($0)\">" as HTML } ?? .empty)<button>Fetch</button>
                </form>

                """
            if let error {
                body += "<pre class=\"caret\" id=\"predicate-error\">\(error)</pre>"
                return body
            }
            for warning in warnings { body += "<p class=\"warning\">\(warning)</p>" }
            let countLink: HTML = (counted ?? 0) > Self.countLimit ? " <span class=\"muted\">(counting stops there)</span>" : .empty
            body += "<p><span id=\"count\">\(countText)</span> object\(counted == 1 ? "" : "s")\(countLink)"
            body += " · <a href=\"\(Paths.entity(name, query: query([]), form: .csv))\">CSV</a> · <a href=\"\(Paths.entity(name, query: query([]), form: .json))\">JSON</a></p>"
            if case .object = sql {
                body += "<details><summary>SQL</summary><pre>\(sql["sql"]?.text ?? "")</pre>"
                let arguments = sql["arguments"]?.items ?? []
                if !arguments.isEmpty { body += "<p class=\"muted\">bound: \(arguments.map(\.text).joined(separator: ", "))</p>" }
                body += "</details>"
            }
            let pending = page.site.editor?.pendingGrid(name)
            let editing = page.site.editor.map { editor in Self.editing(entity, editor, pending) }
            if let editing, let pending {
                body += editBar(name, frame: page.layout.frame)
                let inserted = pending.inserted
                if !inserted.isEmpty {
                    body += "<div id=\"new\">" + grid(inserted, columns: columns, entity: name, sort: nil, query: { _ in [] }, editing: editing,
                                                      caption: "New \(name) objects, saved with the other changes") + "</div>"
                }
            }
            body += grid(objects, columns: columns, entity: name, sort: sort, query: query, editing: editing)
            body += "<p class=\"pager\">"
            if after != nil { body += "<a href=\"\(Paths.entity(name, query: query([])))\">first page</a>" }
            if let next { body += "<a rel=\"next\" href=\"\(Paths.entity(name, query: query([("after", next)])))\">next \(size) ›</a>" }
            body += "</p>"
            return body
        }
    }

    /// `size`: 1 to 1000, 100 when not given.
    func pageSize(_ text: String?) throws -> Int {
        guard let text else { return Self.defaultSize }
        guard let size = Int(text), (1...Self.maximumSize).contains(size) else {
            throw CommandError.usage("size takes a number of objects from 1 to \(Self.maximumSize)")
        }
        return size
    }

    /// The grid's columns: the stored attributes (binary ones as links to the object, which
    /// previews them), the to-one relationships, the to-many ones' counts.
    static func columns(of entity: EntityMapping, model: ManagedObjectModel) -> [Column] {
        var columns: [Column] = []
        for a in entity.storedAttributes {
            let bytes = [.binaryData, .transformable, .codable].contains(a.attribute.type) && !a.attribute.holdsJSON
            columns.append(Column(key: a.attribute.name, heading: a.attribute.name, sortable: !bytes, bytes: bytes))
        }
        for r in entity.relationships where !r.relationship.isTransient {
            if r.relationship.isToMany {
                columns.append(Column(key: r.relationship.name + ".@count", heading: r.relationship.name, sortable: false, bytes: false))
            } else if case .foreignKey = r.storage {
                columns.append(Column(key: r.relationship.name, heading: r.relationship.name, sortable: false, bytes: false))
            }
        }
        return columns
    }

    /// The grid of the page's objects: `GridView`, with sort links in the headers of the
    /// columns that sort.
    func grid(_ objects: [OutputValue], columns: [Column], entity: String, sort: String?,
              query: ([(String, String)]) -> [(String, String)], editing: GridView.Editing? = nil, caption: String? = nil) -> HTML {
        let current = sort.map { String($0.split(separator: ":").first ?? "") }
        let descending = sort?.hasSuffix(":desc") == true
        let gridColumns = columns.map { column -> GridView.Column in
            guard column.sortable else { return GridView.Column(key: column.key, heading: "\(column.heading)", bytes: column.bytes) }
            let next = column.key == current && !descending ? column.key + ":desc" : column.key
            let arrow = column.key == current ? (descending ? " ▾" : " ▴") : ""
            let link = Paths.entity(entity, query: query([]).filter { $0.0 != "sort" } + [("sort", next)])
            return GridView.Column(key: column.key, heading: "<a class=\"\(column.key == current ? "sorted" : "")\" href=\"\(link)\">\(column.heading)\(arrow)</a>",
                                   bytes: column.bytes)
        }
        return GridView.html(objects, columns: gridColumns, editing: editing, caption: caption)
    }

    /// What an editing grid of `entity` marks and lets the user change: attributes that are
    /// stored and settable (not bytes, not derived), to-ones by their destination.
    static func editing(_ entity: EntityMapping, _ editor: Editor,
                        _ pending: (values: [String: [String: OutputValue]], deleted: Set<String>, inserted: [OutputValue])?) -> GridView.Editing {
        var editing = GridView.Editing()
        for a in entity.storedAttributes where !a.attribute.isDerived && !a.attribute.isReadOnly
            && ![.binaryData, .transformable, .codable, .objectID].contains(a.attribute.type) {
            editing.editable[a.attribute.name] = .some(nil)
        }
        for r in entity.relationships where !r.relationship.isTransient && !r.relationship.isToMany && !r.relationship.isReadOnly {
            editing.editable[r.relationship.name] = .some(r.relationship.destinationEntityName)
        }
        editing.pending = pending?.values ?? [:]
        editing.deleted = pending?.deleted ?? []
        editing.problems = editor.fieldProblems
        return editing
    }

    /// Above an editing grid: a new object, a delete of the selected ones, and how to edit.
    func editBar(_ entity: String, frame: Layout.Frame) -> HTML {
        """
        <div class="edit-bar" role="toolbar" aria-label="edit \(entity)">\
        <form class="inline" method="post" action="\(Paths.insert)"><input type="hidden" name="csrf" value="\(frame.csrfToken)">\
        <input type="hidden" name="entity" value="\(entity)"><button id="new-object">New \(entity)</button></form> \
        <form class="inline" id="delete-selected" method="post" action="\(Paths.delete)"><input type="hidden" name="csrf" value="\(frame.csrfToken)">\
        <input type="hidden" name="back" value="\(Paths.entity(entity))"><button id="delete-objects">Delete selected</button></form> \
        <span class="muted">Double-click a cell or press Enter to edit it; Enter sets it, Tab sets it and moves on, Escape cancels. Nothing is saved until Save.</span></div>
        """
    }

    /// The rows with each binary column's length (`{"length": N}`, or nil), read without
    /// reading the bytes (`BlobHead.lengths`): a grid of photos reads no photo.
    func withLengths(_ rows: [OutputValue], _ columns: [Column]) throws -> [OutputValue] {
        let binary = columns.filter(\.bytes)
        guard !binary.isEmpty else { return rows }
        let parsed = rows.map { $0["objectID"]?.stringValue.flatMap(ObjectID.parse) }
        let ids = parsed.compactMap { $0 }.map { ObjectID(storeUUID: page.store.uuid, entityName: $0.entityName, primaryKey: $0.primaryKey) }
        var lengths: [String: [Int64: Int]] = [:]
        for column in binary { lengths[column.key] = try BlobHead.lengths(ids, key: column.key, store: page.store) }
        return zip(rows, parsed).map { row, id in
            guard case .object(var pairs) = row, let key = id?.primaryKey else { return row }
            for column in binary {
                pairs.append((column.key, lengths[column.key]?[key].map { .object([("length", .integer(Int64($0)))]) } ?? .null))
            }
            return .object(pairs)
        }
    }

    /// `/Person.csv`: the query's objects as CSV, written as they are read (fetch's writer).
    func download(_ filter: [String]) -> WebResponse {
        let site = page.site
        let name = filter[0]
        return WebResponse(status: 200, headers: [("Content-Type", "text/csv; charset=utf-8"),
                                                  ("Content-Disposition", "attachment; filename=\"\(Self.fileName(name)).csv\"")],
                           body: .stream { writer in
                               try site.withStore { store in
                                   let sink = OutputSink(forwarding: { bytes in (try? writer.write(bytes)) != nil })
                                   let session = Session(store: store, format: .csv, output: sink, warn: { _ in }, note: { _ in }, runsOneCommand: true)
                                   try session.run(try CommandTable.parse(["fetch"] + filter))
                                   sink.flush()
                                   if sink.closed { throw ClientGone() }
                               }
                           })
    }

    /// A file name made of an entity's name: letters, digits, `-` and `_` only.
    static func fileName(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" ? Character($0) : "_" })
    }
}
