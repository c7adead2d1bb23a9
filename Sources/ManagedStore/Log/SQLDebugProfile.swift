import Foundation

/// An app's console under `-com.apple.CoreData.SQLDebug 1…4`, read back and added up: each
/// statement by its shape (bound values and literals stripped), with how often it ran, its time
/// (Core Data's own annotations: the fetch execution time, else the connection fetch time, the
/// count request's or the SQL execution time) and rows; faults fulfilled one at a time in a row
/// along one relationship or of one entity (N+1), which a prefetch or a batch would do in one
/// query; saves, with their statements and time. It reads Xcode's console, `log show` and
/// `log stream` text or a plain file, line by line: a Core Data line it cannot read is counted
/// and kept, never dropped in silence.
public struct SQLDebugProfile: Sendable {
    public struct Shape: Sendable {
        public let sql: String
        /// The table the statement reads or writes first (its entity is the reader's to name).
        public let table: String?
        public let kind: Kind
        public var count = 0
        /// Seconds, from Core Data's annotations; statements the log gave no time for add none.
        public var total: Double = 0
        public var worst: Double = 0
        public var timed = 0
        public var rows = 0
        /// The entity Core Data named for it (`on entity 'Person'`), at level 2 and above.
        public var entity: String?
    }

    public enum Kind: String, Sendable {
        case fetch, count, insert, update, delete, transaction, pragma, other
    }

    /// Faults fulfilled one after another along one relationship (a to-many's, per parent) or
    /// of one entity (each object's own row): N+1.
    public struct FaultBurst: Sendable {
        /// `to-many` (a relationship's, named) or `object` (an entity's rows one at a time).
        public let kind: String
        public let relationship: String?
        public let entity: String?
        public let count: Int
        /// The line the burst began on.
        public let line: Int
    }

    public struct Save: Sendable {
        public let line: Int
        public var statements = 0
        public var inserts = 0
        public var updates = 0
        public var deletes = 0
        public var seconds: Double = 0
    }

    public private(set) var shapes: [Shape] = []
    public private(set) var bursts: [FaultBurst] = []
    public private(set) var saves: [Save] = []
    /// Core Data lines not read: their number and text.
    public private(set) var notUnderstood: [(line: Int, text: String)] = []
    public private(set) var coreDataLines = 0
    public private(set) var otherLines = 0

    /// A burst is this many faults in a row, or more.
    public static let burstLength = 3

    private var index: [String: Int] = [:]
    private var current: Int?
    private var openSave: Save?
    /// Faults of each kind being counted: a run goes on while the statements between are
    /// other faults' (one object's row, then its to-manys, then the next object's…), and ends
    /// at a fetch of the app's own.
    private var runs: [String: (kind: String, relationship: String?, entity: String?, count: Int, line: Int)] = [:]
    private var runOrder: [String] = []
    /// Whether the statement read last fulfilled a fault; nil before any.
    private var lastWasFault: Bool?
    private var lineNumber = 0

    public init() {}

    /// Reads the log's lines (call `finish()` after the last).
    public mutating func read(_ line: Substring) {
        lineNumber += 1
        guard let (category, message) = Self.coreData(line) else {
            otherLines += 1
            return
        }
        coreDataLines += 1
        switch category {
        case "sql": statement(message)
        case "annotation": annotation(message)
        case "details": details(message)
        case "debug", "warning", "error", "fault", "info": break
        default: notUnderstood.append((lineNumber, String(line)))
        }
    }

    public mutating func finish() {
        commitTime()
        endRuns()
        if let save = openSave { saves.append(save) }
        openSave = nil
    }

    /// `CoreData: sql: SELECT …` anywhere in the line (Xcode's console puts a date and the
    /// process before it), or `log show`'s `[com.apple.coredata:sql] SELECT …`.
    static func coreData(_ line: Substring) -> (String, String)? {
        if let range = line.range(of: "CoreData: ") {
            let rest = line[range.upperBound...]
            guard let colon = rest.firstIndex(of: ":"), rest[..<colon].allSatisfy({ $0.isLetter }) else { return nil }
            let message = rest[rest.index(after: colon)...].drop { $0 == " " }
            return (String(rest[..<colon]), String(message))
        }
        if let range = line.range(of: "[com.apple.coredata:") {
            let rest = line[range.upperBound...]
            guard let close = rest.firstIndex(of: "]") else { return nil }
            return (String(rest[..<close]), String(rest[rest.index(after: close)...].drop { $0 == " " }))
        }
        // A console that dropped the framework's name: "sql: SELECT …", "annotation: …".
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        for category in ["sql", "annotation", "details"] where trimmed.hasPrefix(category + ": ") {
            return (category, String(trimmed.dropFirst(category.count + 2)))
        }
        return nil
    }

    // MARK: Lines

    private mutating func statement(_ text: String) {
        commitTime()
        let sql = text.trimmingCharacters(in: .whitespaces)
        let upper = sql.uppercased()
        // A fetch whose rows fulfilled no fault was the app's own: the bursts before it end.
        if lastWasFault == false { endRuns() }
        lastWasFault = upper.hasPrefix("SELECT") ? false : lastWasFault
        if upper.hasPrefix("BEGIN") {
            if let save = openSave { saves.append(save) }
            openSave = Save(line: lineNumber)
        }
        let shape = Self.shape(of: sql)
        if let found = index[shape] {
            current = found
        } else {
            index[shape] = shapes.count
            current = shapes.count
            shapes.append(Shape(sql: shape, table: Self.table(in: sql), kind: Self.kind(of: upper)))
        }
        if let current { shapes[current].count += 1 }
        if var save = openSave {
            save.statements += 1
            if upper.hasPrefix("INSERT") && !upper.contains("Z_PRIMARYKEY") { save.inserts += 1 }
            if upper.hasPrefix("UPDATE") && !upper.contains("Z_PRIMARYKEY") { save.updates += 1 }
            if upper.hasPrefix("DELETE") { save.deletes += 1 }
            openSave = save
            if upper.hasPrefix("COMMIT") || upper.hasPrefix("ROLLBACK") {
                saves.append(save)
                openSave = nil
            }
        }
        // A statement other than a fault's own breaks no run: fault lines follow their statement.
    }

    private mutating func annotation(_ text: String) {
        if let seconds = Self.seconds(after: "sql connection fetch time: ", in: text) {
            time(seconds, total: false)
        } else if text.hasPrefix("total fetch execution time: "), let seconds = Self.seconds(after: "total fetch execution time: ", in: text) {
            time(seconds, total: true)
            if let rows = Self.number(between: " for ", and: " rows", in: text), let current { shapes[current].rows += rows }
        } else if text.hasPrefix("total count request execution time: "), let seconds = Self.seconds(after: "total count request execution time: ", in: text) {
            time(seconds, total: true)
        } else if let seconds = Self.seconds(after: "sql execution time: ", in: text) {
            time(seconds, total: true)
            if openSave != nil { openSave?.seconds += seconds }
        } else if text.hasPrefix("fetch using NSSQLiteStatement") {
            if let entity = Self.quoted(after: "on entity '", in: text), let current { shapes[current].entity = entity }
        } else if text.hasPrefix("fault fulfilled from database for") {
            let entity = Self.entity(inURI: text)
            fault(kind: "object", key: "object:" + (entity ?? "?"), relationship: nil, entity: entity)
        } else if text.hasPrefix("to-many relationship fault \"") || text.hasPrefix("to-one relationship fault \"") {
            let relationship = Self.quoted(after: "fault \"", in: text, closing: "\"")
            let entity = Self.entity(inURI: text)
            fault(kind: "to-many", key: "rel:" + (relationship ?? "?") + ":" + (entity ?? "?"), relationship: relationship, entity: entity)
        } else if text.hasPrefix("Connecting to sqlite database") || text.hasPrefix("Bound intarray") || text.hasPrefix("Prefetching with key")
                    || text.hasPrefix("Disconnecting") || text.hasPrefix("Optimistic locking failure") {
            // Understood, and nothing to add up.
        } else {
            notUnderstood.append((lineNumber, "CoreData: annotation: " + text))
        }
    }

    private mutating func details(_ text: String) {
        if text.hasPrefix("SQLite bind[") || text.hasPrefix("SQLite: EXPLAIN QUERY PLAN") || text.hasPrefix("SQLite: ") { return }
        // EXPLAIN QUERY PLAN rows follow as details of their own: "0 0 0 SCAN TABLE …".
        if text.first?.isNumber == true || text.hasPrefix("SCAN") || text.hasPrefix("SEARCH") || text.hasPrefix("USE TEMP") { return }
        notUnderstood.append((lineNumber, "CoreData: details: " + text))
    }

    /// A time for the statement being read: the connection's fetch time stands until the
    /// fetch's total (which includes it) comes; kept when the next statement starts.
    private mutating func time(_ seconds: Double, total: Bool) {
        guard let current else { return }
        if total || pending == nil { pending = (current, seconds) }
    }

    private var pending: (shape: Int, seconds: Double)?

    private mutating func commitTime() {
        guard let (shape, seconds) = pending else { return }
        shapes[shape].total += seconds
        shapes[shape].timed += 1
        shapes[shape].worst = max(shapes[shape].worst, seconds)
        pending = nil
    }

    private mutating func fault(kind: String, key: String, relationship: String?, entity: String?) {
        lastWasFault = true
        if runs[key] != nil {
            runs[key]?.count += 1
            return
        }
        runs[key] = (kind, relationship, entity, 1, lineNumber)
        runOrder.append(key)
    }

    private mutating func endRuns() {
        for key in runOrder {
            guard let run = runs[key], run.count >= Self.burstLength else { continue }
            bursts.append(FaultBurst(kind: run.kind, relationship: run.relationship, entity: run.entity, count: run.count, line: run.line))
        }
        runs = [:]
        runOrder = []
    }

    // MARK: Reading values

    /// The statement with its literals and bound values stripped: numbers and quoted text
    /// become `?`, an IN list `(?, ?, ?)` becomes `(?...)`, spaces fold to one.
    static func shape(of sql: String) -> String {
        var out = ""
        let chars = Array(sql)
        var i = 0
        var previous: Character = " "
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                var j = i + 1
                while j < chars.count {
                    if chars[j] == "'" { if j + 1 < chars.count && chars[j + 1] == "'" { j += 2; continue }; break }
                    j += 1
                }
                out += "?"
                i = j + 1
                previous = "?"
                continue
            }
            if c.isNumber, !(previous.isLetter || previous.isNumber || previous == "_") {
                var j = i
                while j < chars.count, chars[j].isNumber || chars[j] == "." { j += 1 }
                out += "?"
                i = j
                previous = "?"
                continue
            }
            if c.isWhitespace {
                if previous != " " { out += " " }
                previous = " "
                i += 1
                continue
            }
            out.append(c)
            previous = c
            i += 1
        }
        let folded = out.trimmingCharacters(in: .whitespaces)
        let list = try? NSRegularExpression(pattern: #"\(\?(?:, ?\?)+\)"#)
        return list?.stringByReplacingMatches(in: folded, range: NSRange(folded.startIndex..., in: folded), withTemplate: "(?...)") ?? folded
    }

    static func kind(of upper: String) -> Kind {
        if upper.hasPrefix("SELECT COUNT(") { return .count }
        if upper.hasPrefix("SELECT") { return .fetch }
        if upper.hasPrefix("INSERT") { return .insert }
        if upper.hasPrefix("UPDATE") { return .update }
        if upper.hasPrefix("DELETE") { return .delete }
        if upper.hasPrefix("BEGIN") || upper.hasPrefix("COMMIT") || upper.hasPrefix("ROLLBACK") { return .transaction }
        if upper.hasPrefix("PRAGMA") { return .pragma }
        return .other
    }

    /// The first table after FROM, INTO or UPDATE.
    public static func table(in sql: String) -> String? {
        let pattern = try? NSRegularExpression(pattern: #"(?i)\b(?:FROM|INTO|UPDATE(?: OR \w+)?)\s+"?([A-Za-z_][A-Za-z0-9_]*)"#)
        guard let match = pattern?.firstMatch(in: sql, range: NSRange(sql.startIndex..., in: sql)),
              let range = Range(match.range(at: 1), in: sql) else { return nil }
        return String(sql[range])
    }

    static func seconds(after prefix: String, in text: String) -> Double? {
        guard let range = text.range(of: prefix) else { return nil }
        // "0.0002s" (a colour escape may wrap the number: \u{1B}[31m0.0002\u{1B}[0ms)
        let rest = text[range.upperBound...].replacingOccurrences(of: "\u{1B}[31m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        let number = rest.prefix { $0.isNumber || $0 == "." }
        return Double(number)
    }

    static func number(between start: String, and end: String, in text: String) -> Int? {
        guard let a = text.range(of: start, options: .backwards) else { return nil }
        let rest = text[a.upperBound...]
        guard let b = rest.range(of: end) else { return nil }
        return Int(rest[..<b.lowerBound].trimmingCharacters(in: .whitespaces))
    }

    static func quoted(after start: String, in text: String, closing: Character = "'") -> String? {
        guard let a = text.range(of: start) else { return nil }
        let rest = text[a.upperBound...]
        guard let end = rest.firstIndex(of: closing) else { return nil }
        return String(rest[..<end])
    }

    /// `Country` of `<x-coredata://UUID/Country/p4>`.
    static func entity(inURI text: String) -> String? {
        guard let range = text.range(of: "x-coredata://") else { return nil }
        let parts = text[range.upperBound...].split(separator: "/")
        guard parts.count >= 3 else { return nil }
        return String(parts[1])
    }
}
