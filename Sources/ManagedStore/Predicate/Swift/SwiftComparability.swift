/// Swift compares values of one type: a number attribute with a string, or a string attribute
/// with a number, does not compile. The reader refuses such a predicate and the writer
/// writes none, by this one rule.
enum SwiftComparability {
    /// What is compared with what, for the message, when `type` and `value` do not compare
    /// in Swift; nil when they do.
    static func mismatch(_ type: AttributeType, _ value: PredicateValue) -> (attribute: String, constant: String)? {
        switch value {
        case .string where type.isNumeric || type == .date: return ("\(type.withArticle) attribute", "a string")
        case .integer where type == .string, .double where type == .string: return ("a String attribute", "a number")
        default: return nil
        }
    }
}
