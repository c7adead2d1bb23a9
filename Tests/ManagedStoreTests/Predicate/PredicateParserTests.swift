import ManagedStore
import XCTest

final class PredicateParserTests: XCTestCase {
    func parse(_ s: String, _ args: [String] = [], _ vars: [String: String] = [:]) throws -> ManagedStore.Predicate {
        try PredicateParser.parse(s, written: args, variables: vars)
    }

    func comparison(_ p: ManagedStore.Predicate) -> Comparison? {
        if case .comparison(let c) = p { return c }
        return nil
    }

    func keys(_ e: PredicateOperand) -> [String]? { e.keyPathComponents?.keys }

    func syntaxError(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> PredicateFormatError? {
        do {
            _ = try parse(s)
            XCTFail("parsed: \(s)", file: file, line: line)
            return nil
        } catch let e as PredicateFormatError {
            XCTAssertEqual(e.kind, .syntax, file: file, line: line)
            return e
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    /// Typed arguments (an MCP client's JSON) reach the predicate as the values they are:
    /// text with quotes and backslashes needs no escaping, a string fills %K as a key path,
    /// and a value of the wrong kind for its specifier is the same error as on the command line.
    func testTypedArgumentsAreTakenAsTheValuesTheyAre() throws {
        let text = "a \"quoted\" \\ back'slash"
        let filled = try PredicateParser.parse("%K == %@ AND age > %d", arguments: [.value(.string("name")), .value(.string(text)), .value(.integer(30))])
        guard case .and(let terms) = filled, let name = comparison(terms[0]), let age = comparison(terms[1]) else { return XCTFail("\(filled)") }
        XCTAssertEqual(keys(name.left), ["name"])
        guard case .constant(.string(let value)) = name.right.kind else { return XCTFail("\(name.right)") }
        XCTAssertEqual(value, text)
        guard case .constant(.integer(30)) = age.right.kind else { return XCTFail("\(age.right)") }
        guard case .comparison(let isNil) = try PredicateParser.parse("nickname == %@", arguments: [.value(.null)]),
              case .constant(.null) = isNil.right.kind else { return XCTFail() }

        for (format, argument, message) in [("%K == 1", PredicateArgument.value(.integer(3)), "argument 1 for %K is not a key path: 3"),
                                            ("age > %d", .value(.double(2.5)), "argument 1 for %d must be an integer, not 2.5"),
                                            ("age > %f", .value(.string("x")), "argument 1 for %f must be a number, not \"x\"")] {
            XCTAssertThrowsError(try PredicateParser.parse(format, arguments: [argument])) { error in
                XCTAssertTrue("\(error)".contains(message), "\(format): \(error)")
            }
        }
        // Written arguments are read as the predicate language writes them.
        XCTAssertEqual(try PredicateParser.parse("name == %@", written: ["\"d\""]), try PredicateParser.parse("name == %@", arguments: [.value(.string("d"))]))
    }

    func testAndBindsTighterThanOr() throws {
        guard case .or(let terms) = try parse("a == 1 OR b == 2 AND c == 3") else { return XCTFail() }
        XCTAssertEqual(terms.count, 2)
        guard case .and(let inner) = terms[1] else { return XCTFail() }
        XCTAssertEqual(inner.count, 2)
        guard case .or = try parse("a == 1 && b == 2 || c == 3") else { return XCTFail() }
    }

    func testNotAppliesToOneComparison() throws {
        guard case .and(let terms) = try parse("NOT a == 1 AND b == 2"), case .not = terms[0] else { return XCTFail() }
        guard case .not(.or) = try parse("!(a == 1 OR b == 2)") else { return XCTFail() }
    }

    func testOperatorsAndOptions() throws {
        let ops: [(String, ComparisonOperator)] = [("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual),
                                                   ("<=", .lessOrEqual), ("=<", .lessOrEqual), (">=", .greaterOrEqual),
                                                   ("=>", .greaterOrEqual), ("like", .like), ("BeGiNsWiTh", .beginsWith),
                                                   ("ENDSWITH", .endsWith), ("contains", .contains), ("MATCHES", .matches)]
        for (text, op) in ops {
            XCTAssertEqual(comparison(try parse("name \(text) 'x'"))?.op, op, text)
        }
        XCTAssertEqual(comparison(try parse("name LIKE[cd] 'x'"))?.options, [.caseInsensitive, .diacriticInsensitive])
        XCTAssertEqual(comparison(try parse("name ==[c] 'x'"))?.options, [.caseInsensitive])
        XCTAssertEqual(comparison(try parse("name CONTAINS [n] 'x'"))?.options.folding, [])
    }

    func testLiterals() throws {
        func value(_ literal: String) throws -> PredicateValue { try PredicateParser.parseLiteral(literal) }
        XCTAssertEqual(try value("0x1F"), .integer(31))
        XCTAssertEqual(try value("0o17"), .integer(15))
        XCTAssertEqual(try value("0b101"), .integer(5))
        XCTAssertEqual(try value("9.2e-5"), .double(9.2e-5))
        XCTAssertEqual(try value("-3"), .integer(-3))
        XCTAssertEqual(try value("YES"), .bool(true))
        XCTAssertEqual(try value("false"), .bool(false))
        XCTAssertEqual(try value("nil"), .null)
        XCTAssertEqual(try value("'it\\'s'"), .string("it's"))
        XCTAssertEqual(try value("\"a'b'c\""), .string("a'b'c"))
        XCTAssertEqual(try value("'\\u2602'"), .string("\u{2602}"))
        XCTAssertEqual(try value("{1, 'a'}"), .array([.integer(1), .string("a")]))
        XCTAssertEqual(try value("CAST(0, \"NSDate\")"), .date(0))
        XCTAssertThrowsError(try value("John"))
    }

    func testSubstitutions() throws {
        let c = comparison(try parse("%K BEGINSWITH %@", ["owner.name", "\"Jo\""]))!
        XCTAssertEqual(keys(c.left), ["owner", "name"])
        XCTAssertEqual(c.right.kind, .constant(.string("Jo")))
        XCTAssertEqual(comparison(try parse("age > %d", ["30"]))?.right.kind, .constant(.integer(30)))
        XCTAssertEqual(comparison(try parse("score < %f", ["2"]))?.right.kind, .constant(.double(2)))
        // A quoted specifier is text, and consumes no argument.
        XCTAssertEqual(comparison(try parse("name == '%@'"))?.right.kind, .constant(.string("%@")))
        XCTAssertEqual(comparison(try parse("age BETWEEN {$LO, $HI}", [], ["LO": "18", "HI": "65"]))?.right.kind,
                       .constant(.array([.integer(18), .integer(65)])))
        XCTAssertThrowsError(try parse("name == %@")) { error in
            XCTAssertEqual((error as? PredicateFormatError)?.column, 9)
        }
        XCTAssertThrowsError(try parse("age == %d", ["\"x\""]))
    }

    func testModifiersAndCollections() throws {
        XCTAssertEqual(comparison(try parse("ANY cars.year > 1"))?.modifier, .any)
        XCTAssertEqual(comparison(try parse("SOME cars.year > 1"))?.modifier, .any)
        XCTAssertEqual(comparison(try parse("NONE cars.year > 1"))?.modifier, .notAny)
        XCTAssertEqual(keys(comparison(try parse("cars.@count > 1"))!.left), ["cars", "@count"])
        // The prefix form of a collection operator reads as the suffix form.
        XCTAssertEqual(keys(comparison(try parse("@sum.items.price < 1000"))!.left), ["items", "@sum", "price"])
        guard case .keyPath(let base, "@count") = comparison(try parse("SUBQUERY(cars, $c, $c.year > 2000 AND $c.name == 'x').@count > 0"))!.left.kind,
              case .subquery(_, "c", .and) = base.kind else { return XCTFail() }
        XCTAssertEqual(keys(comparison(try parse("#size == 3"))!.left), ["size"])
        XCTAssertEqual(keys(comparison(try parse("bounds.#size.height == 3"))!.left), ["bounds", "size", "height"])
        XCTAssertEqual(keys(comparison(try parse("NOT0 = 0"))!.left), ["NOT0"])
    }

    func testErrorsPointAtTheProblem() {
        XCTAssertEqual(syntaxError("name LIKEx 'a'")?.column, 6)
        XCTAssertEqual(syntaxError("name == ?")?.column, 9)
        XCTAssertEqual(syntaxError("size == 3")?.column, 1)
        XCTAssertEqual(syntaxError("name == 'abc")?.column, 9)
        XCTAssertEqual(syntaxError("name == 'a')")?.column, 12)
        XCTAssertEqual(syntaxError("(name == 'a'")?.column, 13)
        XCTAssertEqual(syntaxError("name NOT IN {'a'}")?.column, 6)
        XCTAssertEqual(syntaxError("name === 'a'")?.column, 6)
        XCTAssertNotNil(syntaxError(""))
        XCTAssertNotNil(syntaxError("name"))
        XCTAssertNotNil(syntaxError("name == 'a' AND"))
        let e = syntaxError("age >> 3")!
        XCTAssertEqual(e.description.split(separator: "\n").last.map(String.init), "       ^")
    }
}

extension PredicateParserTests {
    /// Nesting tens of thousands deep, in every way the grammar allows, is an error at the
    /// 257th level, never a stack overflow in the parser or in any later walk of the tree.
    func testNestingDeeperThanTheLimitIsAnError() throws {
        let deep = 20_000
        let cases = [
            String(repeating: "(", count: deep) + "age > 3" + String(repeating: ")", count: deep),
            String(repeating: "(", count: deep) + "age",
            String(repeating: "NOT ", count: deep) + "age > 3",
            String(repeating: "!", count: deep) + "age > 3",
            "age IN " + String(repeating: "{", count: deep) + "1" + String(repeating: "}", count: deep),
            "age > " + String(repeating: "-", count: deep) + "1",
            "age > " + Array(repeating: "1", count: deep).joined(separator: " + "),
            "age > " + Array(repeating: "2", count: deep).joined(separator: " * "),
            "age > " + Array(repeating: "2", count: deep).joined(separator: " ** "),
            Array(repeating: "cars", count: deep).joined(separator: ".") + " == nil",
            "tags" + String(repeating: "[0]", count: deep) + " == nil",
            "SUBQUERY(cars, $c, " + String(repeating: "(", count: deep) + "$c.year > 1" + String(repeating: ")", count: deep) + ").@count > 0",
        ]
        for text in cases {
            do {
                _ = try parse(text)
                XCTFail("parsed: \(text.prefix(40))…")
            } catch let error as PredicateFormatError {
                XCTAssertEqual(error.kind, .unsupported, "\(text.prefix(40))…")
                XCTAssertEqual(error.message, "the predicate is nested more than 256 levels deep (parentheses, NOT, operators or key path steps)")
                XCTAssertLessThan(error.position, 2_000, "reported where the limit is passed: \(text.prefix(40))…")
            }
        }
    }

    func testNestingUpToTheLimitParses() throws {
        // The whole predicate and the comparison's expression are two of the 256 levels.
        let parens = String(repeating: "(", count: 254) + "age > 3" + String(repeating: ")", count: 254)
        let inner = try XCTUnwrap(comparison(try parse(parens)))
        XCTAssertEqual(keys(inner.left), ["age"])
        XCTAssertEqual(inner.op, .greater)
        XCTAssertNoThrow(try parse(String(repeating: "NOT ", count: 200) + "age > 3"))
        XCTAssertNoThrow(try parse(Array(repeating: "cars", count: 200).joined(separator: ".") + " == nil"))
    }
}
