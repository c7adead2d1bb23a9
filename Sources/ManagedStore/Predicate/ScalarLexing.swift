/// What the two predicate lexers (NSPredicate's format strings and Swift's `#Predicate`)
/// share: the text as Unicode scalars, since error positions count scalars, and errors placed
/// at an offset of it.
protocol ScalarLexing {
    var source: String { get }
    var scalars: [Unicode.Scalar] { get }
}

extension ScalarLexing {
    func error(_ message: String, at position: Int) -> PredicateFormatError {
        PredicateFormatError(.syntax, message, predicate: source, position: position)
    }

    func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 48 && c.value <= 57 }

    /// Whether `text` comes next, at offset `i`.
    func matches(_ text: String, at i: Int) -> Bool {
        var j = i
        for s in text.unicodeScalars {
            guard j < scalars.count, scalars[j] == s else { return false }
            j += 1
        }
        return true
    }
}
