import GRDB

/// Stand-ins for the SQL functions Core Data's own triggers call (derived attributes,
/// Photos' `ZT_` triggers). Without them every write to such a table fails with
/// "no such function"; with them the triggers' own UPDATEs still keep derived columns.
enum TriggerFunctions {
    static let names = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue",
        "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataTriggerUpdateAffectedObjectValue",
    ]

    static func register(_ db: Database) {
        for name in names {
            db.add(function: DatabaseFunction(name, argumentCount: nil, pure: false) { _ in nil })
        }
    }
}
