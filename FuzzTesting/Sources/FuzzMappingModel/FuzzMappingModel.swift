import FuzzSupport
import ManagedStore

/// An `.xcmappingmodel`'s `xcmapping.xml`, as `migrate --mapping` reads it, between two fixed
/// models (wibosco's versions 1 and 3 of Post, and a Color entity): a mapping or one
/// `MigrationError`, never a crash or a hang, whatever the XML or its archived expressions.
/// A mapping that reads names only entities of the two models.
let source = fixedModel("""
    <?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
    <entity name="Post" representedClassName="Post"><attribute name="color" optional="YES" attributeType="String"/>
    <attribute name="date" optional="YES" attributeType="Date"/><attribute name="postID" optional="YES" attributeType="String"/></entity></model>
    """)
let destination = fixedModel("""
    <?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
    <entity name="Color" representedClassName="Color"><attribute name="hex" optional="YES" attributeType="String"/>
    <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="color" inverseEntity="Post"/></entity>
    <entity name="Post" representedClassName="Post"><attribute name="date" optional="YES" attributeType="Date"/>
    <attribute name="hexColor" optional="YES" attributeType="String"/><attribute name="postID" optional="YES" attributeType="String"/>
    <relationship name="color" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Color" inverseName="post" inverseEntity="Color"/></entity></model>
    """)

func fixedModel(_ xml: String) -> ManagedObjectModel {
    do { return try XcdatamodelReader.model(contents: Array(xml.utf8), file: "contents", source: "contents") } catch {
        preconditionFailure("the harness's own model does not read: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let mapping: MigrationMapping
    do {
        mapping = try MappingModelReader.mapping(contents: FuzzDriver.bytes(data, size), file: "xcmapping.xml", from: source, to: destination)
    } catch is MigrationError {
        return 0
    } catch {
        preconditionFailure("a mapping model failed with an error that is not a MigrationError: \(error)")
    }
    for (target, from) in mapping.entitySources {
        precondition(destination.entity(named: target) != nil && source.entity(named: from) != nil, "a mapping names \(from) → \(target)")
    }
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzMappingModel_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}
