import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect profile LOG [--store STORE]`: an app's SQL debug console added up (`SQLDebugProfile`),
/// its shapes named in the model's terms and, with the store, the slowest fetches explained.
struct ProfileSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Profile an app's Core Data SQL debug log: statements by shape, their time, fault bursts (N+1), saves.",
        discussion: """
            LOG is the app's console under -com.apple.CoreData.SQLDebug 1 to 4: Xcode's console, 'log show' or 'log \
            stream' text, cdinspect's own --sql-debug output, or - for standard input. Statements are grouped by shape \
            (literals and bound values stripped), each with its count, total and worst time (Core Data's own annotations: \
            the fetch execution time, else the connection fetch time, the count request's or the SQL execution time) and \
            rows; faults fulfilled one at a time three or more in a row, along one relationship or of one entity, are \
            named with what would fetch them in one query; saves are listed with their statements and time. Core Data \
            lines it does not understand are counted and listed at the end. With --store, tables are named by their \
            entities, a fetch's predicate is read back from its SQL, and the slowest fetches are explained as explain \
            --plan explains them, with index advice. The store is only read.
            """)

    @Argument(help: ArgumentHelp("The log file, or - for standard input (the default when it is a pipe or a file).", valueName: "log"))
    var log: String?
    @Option(name: .long, help: ArgumentHelp("The app's store, to name tables by entity and explain the slowest fetches.", valueName: "store"))
    var store: String?
    @Option(name: .long, help: ArgumentHelp("How many of the slowest fetches to explain with --store (default 3).", valueName: "n"))
    var explain: Int = 3
    @OptionGroup var output: FormatOption

    func validate() throws {
        guard explain >= 0 else { throw ValidationError("--explain takes a number of fetches, 0 or more") }
        // A terminal is no log: without this, profile would wait for one typed in.
        if log == nil && isatty(STDIN_FILENO) != 0 {
            throw ValidationError("profile reads a log: give its file (cdinspect profile app.log), or pipe it in")
        }
    }

    func run() throws {
        try Diagnostics.reporting {
            var profile = SQLDebugProfile()
            try Self.lines(of: log ?? "-") { profile.read($0) }
            profile.finish()
            let opened = try store.map { try PersistentStore(path: try StoreSearch.resolve($0), options: .init(readonly: true)) }
            defer { opened?.close() }
            let report = try ProfileReport(profile: profile, store: opened, explain: explain)
            let sink = Terminal.standardOutput()
            output.results(to: sink).report(report.report)
            sink.flush()
        }
    }

    /// The file's lines, read a piece at a time (a console log can be hundreds of megabytes).
    static func lines(of path: String, _ body: (Substring) -> Void) throws {
        let handle: FileHandle
        if path == "-" {
            handle = .standardInput
        } else {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw ProfileError.noLog(path) }
            guard !isFolder.boolValue, let opened = FileHandle(forReadingAtPath: path) else { throw ProfileError.unreadable(path) }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }
        var pending: [UInt8] = []
        while true {
            try Cancellation.check()
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            pending += chunk
            var start = 0
            while let newline = pending[start...].firstIndex(of: 10) {
                body(Substring(String(decoding: pending[start..<newline], as: UTF8.self)))
                start = newline + 1
            }
            pending.removeSubrange(0..<start)
        }
        if !pending.isEmpty { body(Substring(String(decoding: pending, as: UTF8.self))) }
    }
}

enum ProfileError: Error, CustomStringConvertible {
    case noLog(String)
    case unreadable(String)

    var description: String {
        switch self {
        case .noLog(let path): return "no such log file: \(path)"
        case .unreadable(let path): return "cannot read the log \(path) (a folder, or no permission)"
        }
    }
}

/// The profile as `profile` answers it: its shapes (slowest first), bursts, saves and the lines
/// it did not read, in the model's terms where a store is given.
struct ProfileReport {
    let report: Report

    init(profile: SQLDebugProfile, store: PersistentStore?, explain: Int) throws {
        let shapes = profile.shapes.sorted { ($0.total, $0.count) > ($1.total, $1.count) }
        func entity(_ shape: SQLDebugProfile.Shape) -> String? {
            if let named = shape.entity { return named }
            guard let store, let table = shape.table else { return shape.table }
            return store.mapping.rootEntity(ofTable: table)?.name ?? table
        }
        var explained: [String: OutputValue] = [:]
        if let store {
            for shape in shapes.filter({ $0.kind == .fetch }).prefix(explain) {
                guard let name = entity(shape), (try? store.entity(name)) != nil else { continue }
                guard let plan = try? QueryPlan.explain(sql: shape.sql.replacingOccurrences(of: "(?...)", with: "(?)"), entity: name, store: store) else { continue }
                let advice = try? IndexAdvice.advise(sql: shape.sql.replacingOccurrences(of: "(?...)", with: "(?)"), entity: name, current: plan, store: store)
                var value: [(String, OutputValue)] = [("steps", .array(plan.steps.map { .string($0.described) })), ("verdict", .string(plan.verdict))]
                value.append(("advice", advice.map { advice in .array(advice.indexes.map { .object([("swiftData", .string($0.swiftData)), ("createIndex", .string($0.createIndex))]) }) } ?? .null))
                explained[shape.sql] = .object(value)
            }
        }
        func milliseconds(_ seconds: Double) -> OutputValue { .real((seconds * 10_000).rounded() / 10) }
        let shapeValues = shapes.map { shape -> OutputValue in
            var pairs: [(String, OutputValue)] = [
                ("shape", .string(shape.sql)), ("kind", .string(shape.kind.rawValue)), ("entity", entity(shape).map(OutputValue.string) ?? .null),
                ("count", .integer(Int64(shape.count))), ("totalMilliseconds", milliseconds(shape.total)), ("worstMilliseconds", milliseconds(shape.worst)),
                ("timed", .integer(Int64(shape.timed))), ("rows", .integer(Int64(shape.rows))),
            ]
            if let store, let predicate = Self.predicate(shape.sql, store: store) { pairs.append(("predicate", .string(predicate))) }
            if let plan = explained[shape.sql] { pairs.append(("plan", plan)) }
            return .object(pairs)
        }
        let bursts = profile.bursts.map { burst -> OutputValue in
            .object([("kind", .string(burst.kind)), ("relationship", burst.relationship.map(OutputValue.string) ?? .null),
                     ("entity", burst.entity.map(OutputValue.string) ?? .null), ("count", .integer(Int64(burst.count))),
                     ("line", .integer(Int64(burst.line))), ("advice", .string(Self.advice(burst)))])
        }
        let saves = profile.saves.map { save -> OutputValue in
            .object([("line", .integer(Int64(save.line))), ("statements", .integer(Int64(save.statements))), ("inserts", .integer(Int64(save.inserts))),
                     ("updates", .integer(Int64(save.updates))), ("deletes", .integer(Int64(save.deletes))), ("milliseconds", milliseconds(save.seconds))])
        }
        let unread = profile.notUnderstood.map { OutputValue.object([("line", .integer(Int64($0.line))), ("text", .string($0.text))]) }
        let lines = OutputValue.object([("coreData", .integer(Int64(profile.coreDataLines))), ("other", .integer(Int64(profile.otherLines))),
                                        ("notUnderstood", .integer(Int64(profile.notUnderstood.count)))])
        let value = OutputValue.object([("shapes", .array(shapeValues)), ("faultBursts", .array(bursts)), ("saves", .array(saves)),
                                        ("notUnderstood", .array(unread)), ("lines", lines)])
        report = Report(value: { value }, people: {
            var parts: [ReportPart] = [.line("\(profile.coreDataLines) Core Data lines, \(profile.shapes.reduce(0) { $0 + $1.count }) statements in \(shapes.count) shapes; \(profile.otherLines) other lines")]
            parts.append(.rows(["count", "total ms", "worst ms", "rows", "entity", "shape"], shapeValues.map { v in
                [v["count"] ?? .null, v["totalMilliseconds"] ?? .null, v["worstMilliseconds"] ?? .null, v["rows"] ?? .null, v["entity"] ?? .null, v["shape"] ?? .null]
            }))
            for v in shapeValues {
                if let predicate = v["predicate"]?.stringValue { parts.append(.line("\(v["entity"]?.text ?? ""): where \(predicate)")) }
                guard let plan = v["plan"] else { continue }
                parts.append(.line("\(v["entity"]?.text ?? "") (\(v["count"]?.text ?? "") × \(v["totalMilliseconds"]?.text ?? "") ms): \(plan["verdict"]?.text ?? "")"))
                for step in plan["steps"]?.items ?? [] { parts.append(.line("  " + step.text)) }
                for index in plan["advice"]?.items ?? [] { parts.append(.line("  advice: " + (index["swiftData"]?.text ?? "") + "  (" + (index["createIndex"]?.text ?? "") + ")")) }
            }
            if bursts.isEmpty { parts.append(.line("No fault bursts.")) }
            for burst in bursts {
                parts.append(.line("fault burst at line \(burst["line"]?.text ?? ""): \(burst["count"]?.text ?? "") \(burst["kind"]?.text ?? "") faults"
                                   + (burst["relationship"]?.stringValue.map { " of \"\($0)\"" } ?? "") + (burst["entity"]?.stringValue.map { " (\($0))" } ?? "")
                                   + ": " + (burst["advice"]?.text ?? "")))
            }
            if !saves.isEmpty {
                parts.append(.rows(["line", "statements", "inserts", "updates", "deletes", "ms"], saves.map { s in
                    ["line", "statements", "inserts", "updates", "deletes", "milliseconds"].map { s[$0] ?? .null }
                }))
            }
            if !unread.isEmpty {
                parts.append(.line("\(unread.count) Core Data line\(unread.count == 1 ? "" : "s") not understood:"))
                for u in unread.prefix(50) { parts.append(.line("  \(u["line"]?.text ?? ""): \(u["text"]?.text ?? "")")) }
                if unread.count > 50 { parts.append(.line("  … \(unread.count - 50) more (--format json lists them all)")) }
            }
            return parts
        })
    }

    /// What fetches a burst's objects in one query.
    static func advice(_ burst: SQLDebugProfile.FaultBurst) -> String {
        switch burst.kind {
        case "to-many":
            let key = burst.relationship ?? "the relationship"
            return "prefetch it with the fetch of the \(burst.entity ?? "parent") objects: NSFetchRequest.relationshipKeyPathsForPrefetching = [\"\(key)\"] "
                + "(SwiftData: FetchDescriptor.relationshipKeyPathsForPrefetching = [\\.\(key)])"
        default:
            return "fetch the \(burst.entity ?? "") objects in one request (returnsObjectsAsFaults = false, or a fetchBatchSize), "
                + "or prefetch the to-one that leads to them with relationshipKeyPathsForPrefetching"
        }
    }

    /// The WHERE clause of a fetch in the model's terms (`t0.ZAGE > ?` → `age > ?`), where
    /// its columns are the fetched entity's.
    static func predicate(_ sql: String, store: PersistentStore) -> String? {
        guard sql.hasPrefix("SELECT"), let whereRange = sql.range(of: " WHERE ") else { return nil }
        var clause = String(sql[whereRange.upperBound...])
        for stop in [" ORDER BY ", " LIMIT ", " GROUP BY "] {
            if let range = clause.range(of: stop) { clause = String(clause[..<range.lowerBound]) }
        }
        guard let table = SQLDebugProfile.table(in: sql), store.mapping.rootEntity(ofTable: table) != nil,
              let pattern = try? NSRegularExpression(pattern: #"\bt0\.(Z\w+)"#) else { return nil }
        var out = ""
        var last = clause.startIndex
        for match in pattern.matches(in: clause, range: NSRange(clause.startIndex..., in: clause)) {
            guard let range = Range(match.range, in: clause), let column = Range(match.range(at: 1), in: clause) else { continue }
            out += clause[last..<range.lowerBound]
            out += store.mapping.propertyName(ofColumn: String(clause[column]), inTable: table) ?? String(clause[range])
            last = range.upperBound
        }
        out += clause[last...]
        return out.trimmingCharacters(in: .whitespaces)
    }
}
