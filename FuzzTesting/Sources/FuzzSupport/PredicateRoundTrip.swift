import ManagedStore

/// The round trip both predicate targets check: a predicate written as an NSPredicate format
/// string (as `explain` writes it) reads again and writes the same string.
public enum PredicateRoundTrip {
    public static func check(_ predicate: Predicate) {
        let format = NSPredicateWriter.format(predicate)
        guard let again = try? PredicateParser.parse(format) else {
            preconditionFailure("a predicate written as a format string does not parse: \(format)")
        }
        precondition(NSPredicateWriter.format(again) == format, "a predicate written as a format string does not write the same again: \(format)")
    }
}
