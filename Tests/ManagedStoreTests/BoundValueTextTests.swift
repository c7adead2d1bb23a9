@testable import ManagedStore
import XCTest

/// The level-2 bind lines are read back from SQLite's expanded SQL; these cases are the
/// texts where a naive reading would go wrong.
final class BoundValueTextTests: XCTestCase {
    func testLiteralsOfEveryStorageClass() {
        XCTAssertEqual(BoundValueText.values(sql: "SELECT ? , ?, ?, ?, ?", expanded: "SELECT 18 , -2.5e-07, 'it''s', NULL, x'00ff'"),
                       ["18", "-2.5e-07", "it's", "nil", "{length = 2, bytes = 0x00ff}"])
    }

    func testQuestionMarksInsideQuotesAreNotParameters() {
        XCTAssertEqual(BoundValueText.values(sql: "SELECT '?', \"a?\" FROM t WHERE x = ?1 AND [y?] = ?",
                                             expanded: "SELECT '?', \"a?\" FROM t WHERE x = 'a '' ?' AND [y?] = 7"),
                       ["a ' ?", "7"])
    }

    func testTextThatLooksLikeSQLIsOneValue() {
        XCTAssertEqual(BoundValueText.values(sql: "UPDATE t SET a = ? WHERE b = ?",
                                             expanded: "UPDATE t SET a = '''; DROP TABLE t; --' WHERE b = 3"),
                       ["'; DROP TABLE t; --", "3"])
    }

    func testMisalignedTextsGiveNothing() {
        XCTAssertNil(BoundValueText.values(sql: "SELECT ?", expanded: "SELECT"))
        XCTAssertNil(BoundValueText.values(sql: "SELECT a, ?", expanded: "SELECT b, 1"))
    }
}
