import ManagedStore

/// `migrate`'s answer: the plan (and, after a run, the rows the new store holds). For
/// programs one object; for people the steps, the drops, the refusals and a verdict; in CSV
/// one table whose first column names the section.
enum MigrationReport {
    static func origin(_ fill: MigrationPlan.ColumnFill) -> String { fill.origin ?? "" }

    static func stepName(_ s: MigrationPlan.EntityStep) -> String {
        guard let source = s.source else { return "\(s.entity): new entity" }
        return source == s.entity ? s.entity : "\(s.entity) ← \(source) (renamed)"
    }

    static func findingLine(_ f: DoctorFinding) -> String {
        f.detail + (f.examples.isEmpty ? "" : " (\(f.count) row\(f.count == 1 ? "" : "s"): "
            + f.examples.map { "\($0.entity)/p\($0.primaryKey)" }.joined(separator: " ") + (f.count > Int64(f.examples.count) ? " …" : "") + ")")
    }

    static func changeLine(_ c: ModelDiff.Change) -> String {
        c.entity + (c.property.map { "." + $0 } ?? "") + ": " + c.detail + " (" + c.rule + ")"
    }

    static func verdict(_ plan: MigrationPlan, outcome: StoreMigration.Outcome?) -> String {
        if let outcome {
            let rows = outcome.rows.reduce(0) { $0 + $1.count }
            return "migrated to \(outcome.path): \(rows) row\(rows == 1 ? "" : "s") in \(outcome.rows.count) entities"
                + (outcome.kept.map { "; the store as it was is kept as snapshot \($0.name)" } ?? "")
        }
        if !plan.needsMappingModel.isEmpty {
            return "refused: \(plan.needsMappingModel.count) change\(plan.needsMappingModel.count == 1 ? " needs" : "s need") a mapping model; nothing written"
        }
        if !plan.rejectedRows.isEmpty { return "refused: rows would fail the new model; nothing written" }
        let rows = plan.entities.reduce(0) { $0 + $1.rows }
        let drops = plan.losses.filter { $0.count > 0 }.count
        return "dry run: \(rows) row\(rows == 1 ? "" : "s") would migrate, \(drops) drop\(drops == 1 ? "" : "s") with data; nothing written"
    }

    static func report(_ plan: MigrationPlan, store: PersistentStore, outcome: StoreMigration.Outcome?) -> Report {
        let written = Dictionary(outcome?.rows.map { ($0.entity, $0.count) } ?? [], uniquingKeysWith: { a, _ in a })
        let how = plan.mapping.fromMappingModel ? "the mapping model" : "the inferred (lightweight) mapping"
        return Report(value: {
            .object([
                ("sourceModel", .string(store.model.source.description)),
                ("mapping", .string(plan.mapping.fromMappingModel ? "mappingModel" : "inferred")),
                ("method", .string(plan.altersInPlace ? "alter" : "copy")),
                ("steps", .array(plan.entities.map { s in
                    .object([("entity", .string(s.entity)), ("entityID", .integer(Int64(s.entityID))),
                             ("source", s.source.map(OutputValue.string) ?? .null), ("rows", .integer(s.rows)),
                             ("written", written[s.entity].map(OutputValue.integer) ?? .null),
                             ("columns", .array(s.fills.filter { $0.origin != nil }.map {
                                 .object([("column", .string($0.column)), ("from", .string(origin($0)))]) }))])
                })),
                ("joins", .array(plan.joins.map { .object([("table", .string($0.table)), ("rows", .integer($0.rows)), ("from", .string($0.origin))]) })),
                ("drops", .array(plan.losses.map { l in
                    .object([("entity", .string(l.entity)), ("property", l.property.map(OutputValue.string) ?? .null),
                             ("count", .integer(l.count)), ("what", .string(l.what))])
                })),
                ("refused", .array(plan.needsMappingModel.map { .string(changeLine($0)) } + plan.rejectedRows.map { f in
                    .object([("check", .string(f.check)), ("entity", f.entity.map(OutputValue.string) ?? .null),
                             ("property", f.property.map(OutputValue.string) ?? .null), ("count", .integer(f.count)),
                             ("examples", .array(DoctorReport.examples(f, store: store))), ("detail", .string(f.detail))])
                })),
                ("untested", .array(plan.untested.map { .string(changeLine($0)) })),
                ("written", outcome.map { .string($0.path) } ?? .null),
                ("kept", outcome?.kept.map(SnapshotLibrary.value) ?? .null),
                ("verdict", .string(verdict(plan, outcome: outcome))),
            ])
        }, people: {
            // A store read with a model file (it holds none of its own) says which.
            let from: String
            if case .modelFile(let path) = store.model.source { from = " (written with model file \(path))" } else { from = "" }
            var parts: [ReportPart] = [.line("migration of \(store.path)\(from) to \(plan.destinationModel.source.description), by \(how)"
                                             + (plan.altersInPlace ? "; it only adds, so the store's pages are copied and altered:" : ":"))]
            for s in plan.entities {
                let count = written[s.entity].map { "\($0) rows written" } ?? "\(s.rows) row\(s.rows == 1 ? "" : "s")"
                parts.append(.line("  \(stepName(s)) (entity \(s.entityID), \(s.table)): \(s.source == nil ? "no rows" : count)"))
                for fill in s.fills where fill.origin != nil && s.source != nil {
                    parts.append(.line("      \(fill.column): \(origin(fill))"))
                }
            }
            for j in plan.joins { parts.append(.line("  join table \(j.table): \(j.rows) pair\(j.rows == 1 ? "" : "s"), \(j.origin)")) }
            if !plan.losses.isEmpty {
                parts.append(.gap)
                parts.append(.line("dropped:"))
                for l in plan.losses {
                    parts.append(.line("  \(l.entity)\(l.property.map { "." + $0 } ?? ""): \(l.what) (\(l.count) \(l.property == nil ? "row" : "value")\(l.count == 1 ? "" : "s"))"))
                }
            }
            if !plan.untested.isEmpty {
                parts.append(.gap)
                parts.append(.line("not covered by Apple's rules (carried as the layout gives them; test the app's migration):"))
                parts += plan.untested.map { .line("  " + changeLine($0)) }
            }
            if plan.isRefused {
                parts.append(.gap)
                parts.append(.line("refused:"))
                parts += plan.needsMappingModel.map { .line("  " + changeLine($0)) }
                parts += plan.rejectedRows.map { .line("  " + findingLine($0)) }
            }
            parts.append(.gap)
            parts.append(.line(verdict(plan, outcome: outcome)))
            return parts
        }, csv: {
            var rows: [[OutputValue]] = plan.entities.map {
                [.string("step"), .string($0.entity), $0.source.map(OutputValue.string) ?? .null, .integer($0.rows), .null]
            }
            rows += plan.joins.map { [.string("join"), .string($0.table), .null, .integer($0.rows), .string($0.origin)] }
            rows += plan.losses.map { [.string("drop"), .string($0.entity), $0.property.map(OutputValue.string) ?? .null, .integer($0.count), .string($0.what)] }
            rows += plan.needsMappingModel.map { [.string("refused"), .string($0.entity), $0.property.map(OutputValue.string) ?? .null, .null, .string($0.detail)] }
            rows += plan.rejectedRows.map { [.string("refused"), $0.entity.map(OutputValue.string) ?? .null, $0.property.map(OutputValue.string) ?? .null, .integer($0.count), .string($0.detail)] }
            return [.rows(["section", "entity", "source or property", "count", "detail"], rows)]
        })
    }
}
