import ManagedStore

/// `doctor`'s report: for programs one object; for people sections (space, heaviest
/// attributes, health, migration) and a verdict; in CSV one table whose first column names
/// the section, so a program reads it in one go.
enum DoctorReport {
    struct SpaceLine {
        let kind: String
        let name: String
        let bytes: Int64?
        let count: Int64?
        /// A table's entities with their own rows (nil: the table could not be read).
        var entities: [(name: String, rows: Int64?)] = []
    }

    static func spaceLines(_ space: StoreSpace) -> [SpaceLine] {
        var lines = [SpaceLine(kind: "file", name: "main file", bytes: space.files.mainFile, count: nil),
                     SpaceLine(kind: "file", name: "-wal", bytes: space.files.wal, count: nil)]
        if space.files.externalFiles > 0 {
            lines.append(SpaceLine(kind: "file", name: "external data files", bytes: space.files.externalBytes, count: space.files.externalFiles))
        }
        for t in space.tables {
            let entities = t.entities.count == 1 ? t.entities[0].name : t.entities.map { "\($0.name) \($0.rows.map(String.init) ?? "unknown")" }.joined(separator: ", ")
            lines.append(SpaceLine(kind: "table", name: "\(t.table) (\(entities))", bytes: t.tableBytes, count: t.rows, entities: t.entities))
            if let index = t.indexBytes, index > 0 { lines.append(SpaceLine(kind: "indexes", name: "\(t.table) indexes", bytes: index, count: nil)) }
        }
        if let h = space.history {
            lines.append(SpaceLine(kind: "history", name: "history (\(h.transactions) transactions, \(h.changes) changes"
                                   + (h.oldest.map { ", \(OutputValue.isoDate($0))" } ?? "") + (h.newest.map { " to \(OutputValue.isoDate($0))" } ?? "") + ")",
                                   bytes: h.bytes, count: h.changes))
        }
        if let cache = space.modelCacheBytes { lines.append(SpaceLine(kind: "model cache", name: "Z_MODELCACHE", bytes: cache, count: nil)) }
        lines.append(SpaceLine(kind: "free", name: "free pages (a VACUUM gives them back)", bytes: space.freeBytes, count: space.freeBytes / max(space.pageSize, 1)))
        // Files first as they are; the rest largest first.
        let files = lines.filter { $0.kind == "file" }
        let rest = lines.filter { $0.kind != "file" }.sorted { ($0.bytes ?? -1) > ($1.bytes ?? -1) }
        return files + rest
    }

    static func share(_ bytes: Int64?, of total: Int64) -> OutputValue {
        guard let bytes, total > 0 else { return .null }
        return .real((Double(bytes) * 1000 / Double(total)).rounded() / 10)
    }

    static func examples(_ f: DoctorFinding, store: PersistentStore) -> [OutputValue] {
        f.examples.map { e in
            e.entity.hasPrefix("#") || e.entity == "NULL" ? .string("\(e.entity)/p\(e.primaryKey)")
                : .objectURI(prefix: ObjectID.uriPrefix(storeUUID: store.uuid, entityName: e.entity), key: e.primaryKey)
        }
    }

    static let findingColumns = ["severity", "check", "entity", "property", "count", "examples", "detail"]

    static func values(_ f: DoctorFinding, store: PersistentStore, short: Bool) -> [OutputValue] {
        let ids: OutputValue = short ? .string(f.examples.map { "\($0.entity)/p\($0.primaryKey)" }.joined(separator: " "))
            : .array(examples(f, store: store))
        return [.string(f.severity.rawValue), .string(f.check), f.entity.map(OutputValue.string) ?? .null,
                f.property.map(OutputValue.string) ?? .null, .integer(f.count), ids, .string(f.detail)]
    }

    static func report(_ report: StoreDoctor.Report, store: PersistentStore) -> Report {
        let space = report.space
        let total = space.files.mainFile + space.files.wal + space.files.externalBytes
        let lines = spaceLines(space)
        let findings = report.findings.sorted { $0.severity > $1.severity }
        return Report(value: {
            let spaceValue = OutputValue.object([
                ("totalBytes", .integer(total)), ("pageSize", .integer(space.pageSize)), ("measuredPages", .bool(space.measuredPages)),
                ("items", .array(lines.map { l in
                    .object([("kind", .string(l.kind)), ("name", .string(l.name)), ("bytes", l.bytes.map(OutputValue.integer) ?? .null),
                             ("share", share(l.bytes, of: total)), ("count", l.count.map(OutputValue.integer) ?? .null)]
                            + (l.entities.isEmpty ? [] : [("entities", .array(l.entities.map { e in
                                .object([("entity", .string(e.name)), ("rows", e.rows.map(OutputValue.integer) ?? .null)]) }))]))
                })),
                ("heaviestAttributes", .array(space.attributes.map { a in
                    .object([("entity", .string(a.entity)), ("attribute", .string(a.attribute)), ("total", .integer(a.total)),
                             ("largest", .integer(a.largest))])
                })),
            ])
            func list(_ fs: [DoctorFinding]) -> OutputValue { .array(fs.map { .object(Array(zip(findingColumns, values($0, store: store, short: false)))) }) }
            var pairs: [(String, OutputValue)] = [("path", .string(store.path)), ("space", spaceValue), ("findings", list(findings))]
            if let migration = report.migration { pairs.append(("migration", list(migration))) }
            if let hashes = report.versionHashes {
                pairs.append(("opensWithoutMigration", .bool(EntityHashComparison.opensWithoutMigration(hashes))))
            }
            pairs += [("errors", .integer(Int64(report.errors))), ("warnings", .integer(Int64(report.warnings))), ("verdict", .string(report.verdict))]
            return .object(pairs)
        }, people: {
            var parts: [ReportPart] = [
                .line("Space: \(total) bytes in all" + (space.measuredPages ? "" : " (this SQLite has no dbstat: table sizes unknown)")),
                .rows(["kind", "name", "bytes", "share", "rows"], lines.map { l in
                    [.string(l.kind), .string(l.name), l.bytes.map(OutputValue.integer) ?? .null, share(l.bytes, of: total),
                     l.count.map(OutputValue.integer) ?? .null]
                }),
            ]
            if !space.attributes.isEmpty {
                parts += [.gap, .line("Heaviest attributes (bytes of data, characters of text):"),
                          .rows(["attribute", "total", "largest", "share"], space.attributes.map { a in
                              [.string("\(a.entity).\(a.attribute)"), .integer(a.total), .integer(a.largest), share(a.total, of: total)]
                          })]
            }
            for (title, fs) in [("Health", findings), ("Migration to the new model", report.migration)].compactMap({ t, f in f.map { (t, $0) } }) {
                parts.append(.gap)
                parts += fs.isEmpty ? [.line("\(title): nothing found")]
                    : [.line("\(title):"), .rows(findingColumns, fs.map { values($0, store: store, short: true) })]
            }
            parts.append(.gap)
            if let hashes = report.versionHashes { parts.append(.line(ModelCommand.hashVerdict(hashes, model: "the new model"))) }
            return parts + [.line("verdict: " + report.verdict)]
        }, csv: {
            let none = Array(repeating: OutputValue.null, count: findingColumns.count)
            var rows: [[OutputValue]] = lines.map { l in
                [.string("space"), .string(l.name), l.bytes.map(OutputValue.integer) ?? .null, share(l.bytes, of: total),
                 l.count.map(OutputValue.integer) ?? .null] + none
            }
            rows += space.attributes.map { a in
                [.string("attribute"), .string("\(a.entity).\(a.attribute)"), .integer(a.total), share(a.total, of: total), .null] + none
            }
            for (section, fs) in [("health", findings), ("migration", report.migration ?? [])] {
                rows += fs.map { [.string(section), .null, .null, .null, .null] + values($0, store: store, short: true) }
            }
            return [.rows(["section", "name", "bytes", "share", "rows"] + findingColumns, rows)]
        })
    }
}
