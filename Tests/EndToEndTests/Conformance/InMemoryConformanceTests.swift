import Foundation
import ManagedStore
import XCTest

/// The same conformance cases, evaluated in memory: the evaluator that will match unsaved
/// objects must give Foundation's `evaluateWithObject:` answers (`expect`), whatever Core
/// Data's store answers.
final class InMemoryConformanceTests: XCTestCase {
    /// A case's object graph as KVC sees it: a missing key is nil, as for a dictionary.
    final class JSONObject: PredicateEvaluable {
        let fields: [String: JSONValue]
        init(_ fields: [String: JSONValue]) { self.fields = fields }

        var evaluationIdentity: AnyHashable { ObjectIdentifier(self) }

        func value(forKey key: String) throws -> EvaluatedValue {
            JSONObject.evaluated(fields[key] ?? .null)
        }

        static func evaluated(_ v: JSONValue) -> EvaluatedValue {
            if let date = v.referenceDate { return .value(.date(date)) }
            switch v {
            case .null: return .null
            case .bool(let b): return .value(.bool(b))
            case .integer(let i): return .value(.integer(i))
            case .double(let d): return .value(.double(d))
            case .string(let s): return .value(.string(s))
            case .array(let items): return .collection(items.map(evaluated))
            case .object(let o): return .object(JSONObject(o))
            }
        }
    }

    func testCasesInMemory() throws {
        let data = try Data(contentsOf: try PredicateConformanceTests.conformance.appendingPathComponent("predicate-cases.json"))
        let cases = try JSONDecoder().decode([PredicateConformanceTests.Case].self, from: data)
        var evaluated = 0
        for c in cases {
            let arguments = PredicateConformanceTests.cliArguments(c.predicate, c.args, nil)
                .enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            let variables = (c.variables ?? [:]).compactMapValues { try? PredicateParser.parseLiteral($0.literal) }
            let context = "\(c.id): \(c.predicate) \(arguments)"
            let parsed: ManagedStore.Predicate
            do {
                parsed = try PredicateParser.parse(c.predicate, written: arguments)
            } catch let e as PredicateFormatError {
                XCTAssertEqual(c.expect, .string("parse-error"), "\(context): \(e)")
                XCTAssertEqual(e.kind, .syntax, context)
                continue
            }
            XCTAssertNotEqual(c.expect, .string("parse-error"), context)
            var fields: [String: JSONValue] = [:]
            if case .object(let o)? = c.object { fields = o }
            let evaluator = PredicateEvaluator(text: c.predicate, variables: variables)
            switch c.expect {
            case .bool(let expected):
                XCTAssertEqual(try evaluator.evaluate(parsed, with: JSONObject(fields)), expected, context)
                evaluated += 1
            case .string("eval-error"):
                XCTAssertThrowsError(try evaluator.evaluate(parsed, with: JSONObject(fields)), context)
            default:
                break
            }
        }
        XCTAssertGreaterThan(evaluated, 190)
    }
}
