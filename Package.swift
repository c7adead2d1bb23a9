// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "cdinspect",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "cdinspect", targets: ["cdinspect"]),
        .library(name: "ManagedStore", targets: ["ManagedStore"]),
        .library(name: "Inspector", targets: ["Inspector"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(
            name: "CReadline",
            providers: [.apt(["libreadline-dev"]), .brew(["readline"])]),
        .target(
            name: "ManagedStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API itself, to read fetched columns without per-value generics.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CZlib",
            ]),
        .target(
            name: "Inspector",
            dependencies: [
                "ManagedStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "cdinspect",
            dependencies: [
                "Inspector",
                "ManagedStore",
                "CReadline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "cdi-example-store",
            dependencies: [
                "ManagedStore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Examples/Generator"),
        .testTarget(
            name: "ManagedStoreTests",
            dependencies: ["ManagedStore"]),
        .testTarget(
            name: "InspectorTests",
            dependencies: ["Inspector"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ManagedStore",
                "cdinspect",
                "cdi-example-store",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // Expected debug logs, read from the source tree by SQLDebugLogTests.
            exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v5]
)
