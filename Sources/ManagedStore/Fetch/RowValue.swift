/// A fetched key's value as it sits in the row the fetch is on, for output that copies it
/// straight from SQLite: a string is SQLite's own bytes, valid only inside the call that
/// hands them over, so a million rows cost no String each.
///
/// The plain attribute types come this way when their column holds what the type stores;
/// everything else (a relationship, data, a UUID, a value stored as another type, a row
/// the context has registered) comes `decoded`, as the object holds it. Either way the
/// value is the one `FetchedObject.value(_:)` gives.
public enum RowValue {
    case null
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01 00:00:00 UTC (Core Data's reference date).
    case date(Double)
    /// A string attribute's UTF-8 bytes.
    case text(UnsafeBufferPointer<UInt8>)
    case decoded(ObjectValue)
}
