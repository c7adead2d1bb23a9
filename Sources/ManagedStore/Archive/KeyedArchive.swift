import Foundation

/// A walk over an `NSKeyedArchiver` archive without `NSKeyedUnarchiver`.
///
/// The classes in a model cache (`NSManagedObjectModel`, `NSEntityDescription`, app classes in
/// default values) do not exist on Linux, so objects are read as plain dictionaries and their
/// class names are looked up on demand; unknown classes are simply more dictionaries.
public struct KeyedArchive {
    public let objects: [PropertyListValue]
    public let root: Int

    public init(_ plist: PropertyListValue) throws {
        guard case .array(let objects)? = plist["$objects"] else {
            throw BinaryPropertyList.Error.malformed("keyed archive has no $objects")
        }
        guard case .uid(let root)? = plist["$top"]?["root"], objects.indices.contains(root) else {
            throw BinaryPropertyList.Error.malformed("keyed archive has no root object")
        }
        self.objects = objects
        self.root = root
    }

    /// The archived object a reference points at; `nil` for `$null` (UID 0) or a dangling reference.
    public func object(_ reference: PropertyListValue?) -> PropertyListValue? {
        guard case .uid(let index)? = reference, index != 0, objects.indices.contains(index) else { return nil }
        return objects[index]
    }

    public func uid(_ reference: PropertyListValue?) -> Int? {
        guard case .uid(let index)? = reference, index != 0, objects.indices.contains(index) else { return nil }
        return index
    }

    public func className(of index: Int) -> String? {
        guard objects.indices.contains(index) else { return nil }
        return object(objects[index]["$class"])?["$classname"]?.stringValue
    }

    /// A field of an archived object, following one reference if the field holds one.
    public func value(_ index: Int, _ key: String) -> PropertyListValue? {
        guard objects.indices.contains(index), let raw = objects[index][key] else { return nil }
        if case .uid = raw { return object(raw) }
        return raw
    }

    /// A string field, whether archived as a plain string or as an `NSString`/`NSMutableString`
    /// object (`NS.string`), as some models store transformer names.
    public func string(_ index: Int, _ key: String) -> String? {
        guard let v = value(index, key) else { return nil }
        return v.stringValue ?? v["NS.string"]?.stringValue
    }

    /// The member references of an archived `NSArray`/`NSSet` (or a plain inline array).
    public func arrayReferences(_ index: Int?) -> [Int] {
        guard let index, objects.indices.contains(index) else { return [] }
        if case .array(let refs)? = objects[index]["NS.objects"] {
            return refs.compactMap { uid($0) }
        }
        return []
    }

    /// The (key, value) references of an archived `NSDictionary`, or of an
    /// `NSKnownKeysDictionary1`, whose keys live in its search mapping.
    public func dictionaryReferences(_ index: Int?) -> [(key: Int, value: Int)] {
        guard let index, objects.indices.contains(index) else { return [] }
        let object = objects[index]
        if case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"] {
            return zip(keys, values).compactMap { k, v in
                guard let k = uid(k), let v = uid(v) else { return nil }
                return (k, v)
            }
        }
        if let mapping = uid(object["searchMapping"]) {
            let keys = arrayReferences(uid(objects[mapping]["keys"]))
            let values = arrayReferences(uid(object["values"]))
            return zip(keys, values).map { ($0, $1) }
        }
        return []
    }
}
