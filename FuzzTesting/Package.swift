// swift-tools-version:6.1
import PackageDescription

/// libFuzzer targets for cdinspect's readers of untrusted bytes, one executable per input, each
/// feeding the bytes through the entry point the product uses (README.md). Outside the main
/// package, so that `swift build` and CI do not build them; `do_build.sh` builds them with
/// `-sanitize=fuzzer,address`. The main package is reached through `.cdinspect`, a link to the
/// checkout that `do_build.sh` makes (a path package is named after its folder).
let readers: [(name: String, products: [String])] = [
    ("FuzzKeyedArchive", ["ManagedStore"]),
    ("FuzzBinaryPlist", ["ManagedStore"]),
    ("FuzzNSPredicate", ["ManagedStore"]),
    ("FuzzSwiftPredicate", ["ManagedStore"]),
    ("FuzzModelCache", ["ManagedStore"]),
    ("FuzzModelXML", ["ManagedStore"]),
    ("FuzzMappingModel", ["ManagedStore"]),
    ("FuzzSQLDebugLog", ["ManagedStore"]),
    ("FuzzImportJSON", []),
    ("FuzzImportCSV", []),
    ("FuzzSwiftDataJSON", ["ManagedStore"]),
    ("FuzzMCPLine", ["MCPLines"]),
    ("FuzzHTTPRequest", ["ManagedStore", "WebView"]),
    ("FuzzWholeStore", ["ManagedStore", "Inspector"]),
    ("FuzzWAL", ["ManagedStore"]),
    ("FuzzBTreePage", ["ManagedStore"]),
    ("FuzzCellCarver", ["ManagedStore"]),
]
let nio = ["NIOCore", "NIOEmbedded", "NIOHTTP1"]

let package = Package(
    name: "FuzzTesting",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".cdinspect/cdinspect"),
        // The HTTP target runs requests through the HTTP stack `cdinspect browse` serves with.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libFuzzer's LLVMFuzzerRunDriver, declared for Swift.
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver", .product(name: "ManagedStore", package: "cdinspect")]),
    ] + readers.map { reader in
        .executableTarget(
            name: reader.name,
            dependencies: ["FuzzSupport"] + reader.products.map { .product(name: $0, package: "cdinspect") }
                + (reader.name == "FuzzHTTPRequest" ? nio.map { .product(name: $0, package: "swift-nio") } : []),
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    }
)
