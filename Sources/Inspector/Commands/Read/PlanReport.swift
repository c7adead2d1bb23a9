import Foundation
import ManagedStore

/// `explain --plan`'s part of the answer: the plan in the model's terms, each table's rows,
/// the verdict, the advised index written three ways and, with `--try`, the fetch's time
/// before and after it on a copy of the store.
struct PlanReport {
    let value: [(String, OutputValue)]
    let lines: [ReportPart]

    static func make(_ fetchPlan: FetchPlan, store: PersistentStore, measure: Bool) throws -> PlanReport {
        let plan = try QueryPlan.explain(fetchPlan, store: store)
        let advice = try IndexAdvice.advise(fetchPlan, current: plan, store: store)
        var value: [(String, OutputValue)] = [("plan", Self.value(plan))]
        var lines: [ReportPart] = [.line("plan:")] + Self.steps(plan).map { .line("  " + $0) }
        for table in plan.tables { lines.append(.line("\(table.entity): \(table.rows.groupedDigits) rows")) }
        lines.append(.line("verdict: " + plan.verdict))
        guard let advice else {
            value.append(("advice", .null))
            if plan.scansOrSorts { lines.append(.line("advice: no index on the fetch's columns makes it a search or spares its sort")) }
            return PlanReport(value: value, lines: lines)
        }
        var adviceValue: [(String, OutputValue)] = [
            ("indexes", .array(advice.indexes.map { index in
                .object([("entity", .string(index.entity)), ("properties", .array(index.properties.map(OutputValue.string))),
                         ("table", .string(index.table)), ("columns", .array(index.columns.map(OutputValue.string))),
                         ("descending", .array(index.descending.map(OutputValue.bool))),
                         ("swiftData", .string(index.swiftData)), ("fetchIndex", .string(index.fetchIndexXML)), ("createIndex", .string(index.createIndex))])
            })),
            ("plan", Self.value(advice.plan)),
        ]
        for index in advice.indexes {
            lines.append(.line("advice: an index on \(index.entity) (\(zip(index.properties, index.descending).map { $0 + ($1 ? " descending" : "") }.joined(separator: ", ")))"))
            lines.append(.line("  SwiftData:    " + index.swiftData))
            lines.append(.line("  model editor:"))
            lines += index.fetchIndexXML.split(separator: "\n").map { .line("    " + $0) }
            lines.append(.line("  Core Data:    " + index.createIndex))
        }
        lines.append(.line("with \(advice.indexes.count == 1 ? "it" : "them"): \(advice.plan.verdict)"))
        lines += Self.steps(advice.plan).map { .line("  " + $0) }
        if measure {
            let timing = try IndexTrial.measure(fetchPlan, advice: advice, store: store)
            adviceValue.append(("try", .object([("beforeMilliseconds", .real(timing.before * 1000)), ("afterMilliseconds", .real(timing.after * 1000)),
                                                ("copy", .string("a temporary copy of the store, removed after"))])))
            let ratio = timing.after > 0 ? timing.before / timing.after : 0
            func ms(_ seconds: Double) -> String { String(format: seconds < 0.001 ? "%.3f ms" : "%.1f ms", seconds * 1000) }
            lines.append(.line("try: \(ms(timing.before)) before, \(ms(timing.after)) with the index (\(String(format: "%.1f", ratio))× faster), on a temporary copy of the store"))
        }
        value.append(("advice", .object(adviceValue)))
        return PlanReport(value: value, lines: lines)
    }

    static func value(_ plan: QueryPlan) -> OutputValue {
        .object([
            ("steps", .array(plan.steps.map { step in
                .object([("id", .integer(Int64(step.id))), ("parent", .integer(Int64(step.parent))), ("step", .string(step.described)),
                         ("sqlite", .string(step.detail)), ("access", .string(step.access.rawValue)),
                         ("entity", step.entity.map(OutputValue.string) ?? .null), ("index", step.index.map(OutputValue.string) ?? .null)])
            })),
            ("tables", .array(plan.tables.map { .object([("entity", .string($0.entity)), ("table", .string($0.table)), ("rows", .integer(Int64($0.rows)))]) })),
            ("verdict", .string(plan.verdict)),
        ])
    }

    /// The steps indented under their parents.
    static func steps(_ plan: QueryPlan) -> [String] {
        var depth: [Int: Int] = [0: -1]
        return plan.steps.map { step in
            let level = (depth[step.parent] ?? -1) + 1
            depth[step.id] = level
            return String(repeating: "  ", count: level) + step.described
        }
    }
}
