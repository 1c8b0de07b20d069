// swift-tools-version:6.1
import PackageDescription

// Layers, from the edge inwards (see docs/ARCHITECTURE.md):
//   CPcap (C) → PushdiagIO (libpcap) → PushdiagCore (pure Swift) → PushdiagRender → pushdiag (CLI)
let package = Package(
    name: "pushdiag",
    products: [
        .executable(name: "pushdiag", targets: ["pushdiag"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries, one system-library target each, found with pkg-config.
        .systemLibrary(
            name: "CPcap",
            pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"])]
        ),

        .systemLibrary(
            name: "CNetlink",
            pkgConfig: "libnl-genl-3.0",
            providers: [.apt(["libnl-3-dev", "libnl-genl-3-dev"])]
        ),

        .systemLibrary(
            name: "CSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),

        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // Pure Swift: formats, analysis, verdicts and the report model. No C, no I/O.
        .target(name: "PushdiagCore"),

        // The only layer that touches libpcap (and later netlink and sockets).
        .target(name: "PushdiagIO", dependencies: ["CPcap", "CNetlink", "CSSL", "CSQLite", "PushdiagCore"]),

        // Report model → text and JSON.
        .target(name: "PushdiagRender", dependencies: ["PushdiagCore"]),

        // Thin command line.
        .executableTarget(
            name: "pushdiag",
            dependencies: [
                "PushdiagCore", "PushdiagIO", "PushdiagRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Builds 802.11 frames byte by byte for fixtures and tests.
        .target(name: "FixtureKit", dependencies: ["PushdiagCore"]),
        .executableTarget(name: "pushdiag-fixtures", dependencies: ["FixtureKit", "PushdiagIO"]),

        .testTarget(name: "PushdiagCoreTests", dependencies: ["PushdiagCore", "FixtureKit", "PushdiagRender"]),
        .testTarget(
            name: "PushdiagCLITests",
            dependencies: ["CPcap", "CNetlink", "PushdiagCore", "PushdiagIO", "PushdiagRender", "FixtureKit"]
        ),
    ]
)
