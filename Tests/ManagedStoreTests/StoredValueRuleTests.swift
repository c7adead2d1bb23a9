@testable import ManagedStore
import XCTest

final class StoredValueRuleTests: XCTestCase {
    /// A batch update's per-row check takes integers by a range alone: the range must pass
    /// exactly the integers the full rule passes, for every attribute type.
    func testTheIntegerFastPathAgreesWithTheRule() {
        let samples: [Int64] = [.min, Int64(Int32.min) - 1, Int64(Int32.min), -32_769, -32_768, -2, -1, 0, 1, 2,
                                32_767, 32_768, Int64(Int32.max), Int64(Int32.max) + 1, .max]
        for type in AttributeType.allCases {
            for optional in [true, false] {
                let rule = StoredValueRule(attribute: AttributeDescription(name: "x", type: type, isOptional: optional))
                for i in samples {
                    XCTAssertEqual(rule.integersThatFit?.contains(i) ?? false, rule.violation(.integer(i)) == nil, "\(type) \(i)")
                }
            }
        }
    }
}
