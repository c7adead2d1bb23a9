import ManagedStore

/// How `doctor` prints its report: JSON as one object; table and line as sections (space,
/// heaviest attributes, health, migration) and a verdict; CSV as one table whose first
/// column names the section, so a program reads it in one go.
enum DoctorReport {
    struct SpaceLine {
        let kind: String
        let name: String
        let bytes: Int64?
        let count: Int64?
    }

    static func spaceLines(_ space: StoreSpace) -> [SpaceLine] {
        var lines = [SpaceLine(kind: "file", name: "main file", bytes: space.files.mainFile, count: nil),
                     SpaceLine(kind: "file", name: "-wal", bytes: space.files.wal, count: nil)]
        if space.files.externalFiles > 0 {
            lines.append(SpaceLine(kind: "file", name: "external data files", bytes: space.files.externalBytes, count: space.files.externalFiles))
        }
        for t in space.tables {
            let entities = t.entities.count == 1 ? t.entities[0].name : t.entities.map { "\($0.name) \($0.rows)" }.joined(separator: ", ")
            lines.append(SpaceLine(kind: "table", name: "\(t.table) (\(entities))", bytes: t.tableBytes, count: t.rows))
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

    static func write(_ report: StoreDoctor.Report, store: PersistentStore, format: OutputFormat, sink: OutputSink) {
        let space = report.space
        let total = space.files.mainFile + space.files.wal + space.files.externalBytes
        let lines = spaceLines(space)
        let findings = report.findings.sorted { $0.severity > $1.severity }
        switch format {
        case .json:
            let spaceValue = OutputValue.object([
                ("totalBytes", .integer(total)), ("pageSize", .integer(space.pageSize)), ("measuredPages", .bool(space.measuredPages)),
                ("items", .array(lines.map { l in
                    .object([("kind", .string(l.kind)), ("name", .string(l.name)), ("bytes", l.bytes.map(OutputValue.integer) ?? .null),
                             ("share", share(l.bytes, of: total)), ("count", l.count.map(OutputValue.integer) ?? .null)])
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
            sink.line(OutputValue.object(pairs).jsonText)
        case .csv:
            let writer = RowWriter(columns: ["section", "name", "bytes", "share", "rows"] + findingColumns, format: .csv, sink: sink)
            let none = Array(repeating: OutputValue.null, count: findingColumns.count)
            for l in lines {
                writer.row([.string("space"), .string(l.name), l.bytes.map(OutputValue.integer) ?? .null, share(l.bytes, of: total),
                            l.count.map(OutputValue.integer) ?? .null] + none)
            }
            for a in space.attributes {
                writer.row([.string("attribute"), .string("\(a.entity).\(a.attribute)"), .integer(a.total), share(a.total, of: total),
                            .null] + none)
            }
            for (section, fs) in [("health", findings), ("migration", report.migration ?? [])] {
                for f in fs { writer.row([.string(section), .null, .null, .null, .null] + values(f, store: store, short: true)) }
            }
            writer.finish()
        case .table, .line:
            sink.line("Space: \(total) bytes in all" + (space.measuredPages ? "" : " (this SQLite has no dbstat: table sizes unknown)"))
            let spaceWriter = RowWriter(columns: ["kind", "name", "bytes", "share", "rows"], format: format, sink: sink)
            for l in lines {
                spaceWriter.row([.string(l.kind), .string(l.name), l.bytes.map(OutputValue.integer) ?? .null, share(l.bytes, of: total),
                                 l.count.map(OutputValue.integer) ?? .null])
            }
            spaceWriter.finish()
            if !space.attributes.isEmpty {
                sink.line()
                sink.line("Heaviest attributes (bytes of data, characters of text):")
                let writer = RowWriter(columns: ["attribute", "total", "largest", "share"], format: format, sink: sink)
                for a in space.attributes {
                    writer.row([.string("\(a.entity).\(a.attribute)"), .integer(a.total), .integer(a.largest), share(a.total, of: total)])
                }
                writer.finish()
            }
            for (title, fs) in [("Health", findings), ("Migration to the new model", report.migration)].compactMap({ t, f in f.map { (t, $0) } }) {
                sink.line()
                if fs.isEmpty {
                    sink.line("\(title): nothing found")
                    continue
                }
                sink.line("\(title):")
                let writer = RowWriter(columns: findingColumns, format: format, sink: sink)
                fs.forEach { writer.row(values($0, store: store, short: true)) }
                writer.finish()
            }
            sink.line()
            if let hashes = report.versionHashes { sink.line(ModelCommand.hashVerdict(hashes, model: "the new model")) }
            sink.line("verdict: " + report.verdict)
        }
    }
}
