/// Splits a session line into words the way a POSIX shell does (single quotes literal,
/// double quotes with backslash escapes, backslash outside quotes), so that a line in the
/// REPL or a script and the same words on a shell command line mean the same thing.
public enum CommandLineSplitter {
    public static func words(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var iterator = Array(line).makeIterator()
        var quote: Character?
        while let c = iterator.next() {
            if let q = quote {
                if c == q { quote = nil; continue }
                if q == "\"" && c == "\\" {
                    guard let next = iterator.next() else { throw CommandError.usage("unterminated escape at end of line") }
                    if next != "\"" && next != "\\" && next != "$" && next != "`" { current.append("\\") }
                    current.append(next)
                    continue
                }
                current.append(c)
                continue
            }
            switch c {
            case " ", "\t", "\n", "\r":
                if inWord { words.append(current); current = ""; inWord = false }
            case "'", "\"":
                quote = c
                inWord = true
            case "\\":
                guard let next = iterator.next() else { throw CommandError.usage("unterminated escape at end of line") }
                current.append(next)
                inWord = true
            case "#" where !inWord:
                if inWord { words.append(current) }
                return words
            default:
                current.append(c)
                inWord = true
            }
        }
        if let q = quote { throw CommandError.usage("unterminated \(q) quote") }
        if inWord { words.append(current) }
        return words
    }

    /// The `fetch ENTITY where P…` form: everything after the `where` keyword is the predicate,
    /// taken verbatim, so quotes inside it reach the predicate parser untouched. Options may
    /// come between the entity and `where` (`fetch Person --limit 2 where age > 70`), and after
    /// the predicate, where a new user types them (`fetch Person where age > 70 --limit 3`):
    /// outside quotes no predicate holds a space, two dashes and a letter, so from there on the
    /// line is options again.
    public static func splitWhereClause(_ line: String, commands: Set<String>) -> (head: String, predicate: String)? {
        let scalars = Array(line)
        var i = 0
        func skipSpaces() { while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" { i += 1 } }
        func word() -> String {
            let start = i
            while i < scalars.count, !(scalars[i] == " " || scalars[i] == "\t") { i += 1 }
            return String(scalars[start..<i])
        }
        skipSpaces()
        let command = word()
        guard commands.contains(command) else { return nil }
        skipSpaces()
        let entity = word()
        guard !entity.isEmpty, !entity.hasPrefix("-"), !entity.contains("'"), !entity.contains("\"") else { return nil }
        var head = "\(command) \(entity)"
        while true {
            skipSpaces()
            let next = word()
            if next.lowercased() == "where" { break }
            // Options and their values, unquoted; anything else is not this form.
            guard !next.isEmpty, !next.contains("'"), !next.contains("\""), next.hasPrefix("-") || head.split(separator: " ").last?.hasPrefix("-") == true else {
                return nil
            }
            head += " " + next
        }
        skipSpaces()
        guard let options = optionsAfterPredicate(scalars, from: i) else { return (head, String(scalars[i...])) }
        return (head + String(scalars[options...]), String(scalars[i..<options]))
    }

    /// The same form on a shell's command line, already split into words:
    /// `cdinspect fetch STORE Person where 'age > 70' --limit 3` reads as
    /// `--where 'age > 70' --limit 3`. The words from `where` up to the first that starts with
    /// two dashes and a letter are the predicate, joined by spaces; nil when the arguments do
    /// not take this form (no `where` after the store and the entity, nothing after it, or a
    /// command `takesWhereClause` refuses, asked only once a `where` is there).
    public static func whereClauseArguments(_ arguments: [String], takesWhereClause: (String) -> Bool) -> [String]? {
        guard let keyword = arguments.indices.dropFirst(3).first(where: { arguments[$0].lowercased() == "where" }),
              !arguments.contains("--where"), takesWhereClause(arguments[0]) else { return nil }
        let predicateWords = arguments[(keyword + 1)...]
        let end = predicateWords.firstIndex(where: startsAnOption) ?? arguments.endIndex
        let predicate = predicateWords[..<end].joined(separator: " ")
        guard predicate.contains(where: { $0 != " " && $0 != "\t" }) else { return nil }
        return Array(arguments[..<keyword]) + ["--where", predicate] + arguments[end...]
    }

    /// Whether `text` starts with an option's name: two dashes and a letter (`--limit`, not
    /// `--` alone nor a negative number).
    static func startsAnOption<Text: Collection<Character>>(_ text: Text) -> Bool {
        var characters = text.makeIterator()
        return characters.next() == "-" && characters.next() == "-" && characters.next()?.isLetter == true
    }

    /// Where options start after a predicate: the first space outside quotes that is followed
    /// by `--` and a letter; nil when none does.
    static func optionsAfterPredicate(_ scalars: [Character], from start: Int) -> Int? {
        var quote: Character?
        var i = start
        while i < scalars.count {
            let c = scalars[i]
            if let q = quote {
                if c == "\\" { i += 1 } else if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == " " || c == "\t", startsAnOption(scalars[(i + 1)...]) {
                return i
            }
            i += 1
        }
        return nil
    }

    /// The rest of the line after `command`, as typed, when it starts with a letter (an SQL
    /// keyword); nil otherwise (options or a quoted argument: split as usual).
    public static func rawTail(_ line: String, command: String) -> String? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.hasPrefix(command + " ") || trimmed.hasPrefix(command + "\t") else { return nil }
        let rest = trimmed.dropFirst(command.count).drop { $0 == " " || $0 == "\t" }
        guard let first = rest.first, first.isLetter else { return nil }
        return String(rest)
    }
}
