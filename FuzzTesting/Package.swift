// swift-tools-version:6.1
import PackageDescription

/// libFuzzer targets for cdinspect's readers of untrusted bytes, one executable per input, each
/// feeding the bytes through the entry point the product uses (README.md). Outside the main
/// package, so that `swift build` and CI do not build them; `do_build.sh` builds them with
/// `-sanitize=fuzzer,address`. The main package is reached through `.cdinspect`, a link to the
/// checkout that `do_build.sh` makes (a path package is named after its folder).
let targets = ["FuzzKeyedArchive", "FuzzBinaryPlist", "FuzzNSPredicate", "FuzzModelCache", "FuzzModelXML"]

let package = Package(
    name: "FuzzTesting",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: ".cdinspect/cdinspect")],
    targets: [
        // libFuzzer's LLVMFuzzerRunDriver, declared for Swift.
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"]),
    ] + targets.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", .product(name: "ManagedStore", package: "cdinspect")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    }
)
