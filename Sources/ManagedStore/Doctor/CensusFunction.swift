import GRDB
import GRDBSQLite

/// `cdi_misfits(spec, v1, v2, …)`: how many of a row's values break their attribute's type,
/// in one call per row. The census of a 1 GB table spent most of its time in SQL's own
/// `typeof(x) NOT IN (…)` for each column (a function call and string comparisons per
/// value); this reads each value's storage class once. `spec` has a letter per value:
///
/// - `i`: integer or NULL; `s` and `m` the same within 16 and 32 bits
/// - `n`: real, integer or NULL (doubles, floats, dates); `d` also text (decimals)
/// - `t` / `b`: `typeof()` of a text / blob column, passed instead of the value so that a
///   large value is never read: it must name text / blob, or null
enum CensusFunction {
    static func register(_ db: Database) {
        sqlite3_create_function_v2(db.sqliteConnection, "cdi_misfits", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, misfits, nil, nil, nil)
    }

    private static let misfits: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, argv in
        guard count >= 1, let argv, let specText = sqlite3_value_text(argv[0]) else { return sqlite3_result_int64(context, 0) }
        var found: Int64 = 0
        var i: Int32 = 1
        while i < count {
            let letter = specText[Int(i - 1)]
            if letter == 0 { break }
            let value = argv[Int(i)]
            let type = sqlite3_value_type(value)
            switch letter {
            case UInt8(ascii: "i"):
                if type != SQLITE_INTEGER && type != SQLITE_NULL { found += 1 }
            case UInt8(ascii: "s"), UInt8(ascii: "m"):
                if type == SQLITE_INTEGER {
                    let n = sqlite3_value_int64(value)
                    let limit: Int64 = letter == UInt8(ascii: "s") ? 1 << 15 : 1 << 31
                    if n < -limit || n >= limit { found += 1 }
                } else if type != SQLITE_NULL {
                    found += 1
                }
            case UInt8(ascii: "n"):
                if type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL { found += 1 }
            case UInt8(ascii: "d"):
                if type == SQLITE_BLOB { found += 1 }
            case UInt8(ascii: "t"), UInt8(ascii: "b"):
                // typeof(): "text", "blob", "null", "integer", "real".
                if let name = sqlite3_value_text(value) {
                    let first = name[0]
                    if first != UInt8(ascii: "n") && first != letter { found += 1 }
                }
            default:
                break
            }
            i += 1
        }
        sqlite3_result_int64(context, found)
    }

    /// The letter for an attribute type, and whether its value is passed through `typeof()`:
    /// the storage classes `StoreHealth.storageClasses` allows the type, encoded, with the
    /// range of the two narrower integer types.
    static func letter(_ type: AttributeType) -> (letter: Character, typeOnly: Bool)? {
        if type == .integer16 { return ("s", false) }
        if type == .integer32 { return ("m", false) }
        switch StoreHealth.storageClasses(type) {
        case ["integer"]?: return ("i", false)
        case ["real", "integer"]?: return ("n", false)
        case ["real", "integer", "text"]?: return ("d", false)
        case ["text"]?: return ("t", true)
        case ["blob"]?: return ("b", true)
        default: return nil
        }
    }
}
