// swift-tools-version:6.2
import PackageDescription

// Layers (see docs/ARCHITECTURE.md): C system libraries (CPcap, CNetlink, CSSL, CSQLite, CEpoll, CCrypt, CDBus) are
// touched only by PushdiagIO; PushdiagCore is pure Swift (formats, analysis, verdicts, settings);
// PushdiagRender turns the core's report models into text, JSON, Nagios, Prometheus and HTML; the
// pushdiag executable maps options to settings and prints. Test targets mirror the modules.
// Warnings are errors in every build of pushdiag's own targets (dependencies keep theirs).
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "pushdiag",
    products: [
        .executable(name: "pushdiag", targets: ["pushdiag"])
    ],
    dependencies: [.package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")],
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

        // libxcrypt's crypt_r(3): the exporter's basic-auth passwords against their bcrypt hashes.
        .systemLibrary(
            name: "CCrypt",
            pkgConfig: "libxcrypt",
            providers: [.apt(["libcrypt-dev"])]
        ),

        // epoll(7), which Swift's Glibc module does not import: a header of inline wrappers.
        .systemLibrary(name: "CEpoll"),

        // libdbus: NetworkManager and iwd asked over the system bus to drop and restore an
        // association (pushdiag join).
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),

        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // Pure Swift: formats, analysis, verdicts and the report model. No C, no I/O.
        .target(name: "PushdiagCore", swiftSettings: strict),

        // The only layer that touches the system: libpcap, netlink, sockets, OpenSSL, SQLite, libxcrypt, libdbus, files.
        .target(
            name: "PushdiagIO", dependencies: ["CPcap", "CNetlink", "CSSL", "CSQLite", "CEpoll", "CCrypt", "CDBus", "PushdiagCore"], swiftSettings: strict),

        // `pushdiag exporter`: the resident process (sessions and Wi-Fi followed on threads, an
        // HTTP server from PushdiagIO, metrics in its own registry, MetricRegistry). IO layer.
        .target(name: "PushdiagExporter", dependencies: ["PushdiagCore", "PushdiagIO"], swiftSettings: strict),

        // Report models → text tables, JSON, Nagios, Prometheus and HTML (one renderer per command and format).
        .target(name: "PushdiagRender", dependencies: ["PushdiagCore"], swiftSettings: strict),

        // Thin command line.
        .executableTarget(
            name: "pushdiag",
            dependencies: [
                "PushdiagCore", "PushdiagIO", "PushdiagRender", "PushdiagExporter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // Builds 802.11 frames byte by byte for fixtures and tests.
        .target(name: "FixtureKit", dependencies: ["PushdiagCore"], swiftSettings: strict),
        .executableTarget(name: "pushdiag-fixtures", dependencies: ["FixtureKit", "PushdiagIO"], swiftSettings: strict),

        // Paths, the process runner and background servers, for the test targets below.
        .target(name: "TestSupport", dependencies: ["PushdiagCore", "PushdiagIO"], path: "Tests/TestSupport", swiftSettings: strict),
        // The core from values and bytes (parsers, analysis, verdicts, settings; TOML against tomllib).
        .testTarget(name: "PushdiagCoreTests", dependencies: ["PushdiagCore", "FixtureKit", "PushdiagRender", "TestSupport"], swiftSettings: strict),
        // IO against real files, sockets, servers and kernel headers (libpcap, netlink constants, tshark).
        .testTarget(
            name: "PushdiagIOTests",
            dependencies: ["CPcap", "CNetlink", "PushdiagCore", "PushdiagIO", "PushdiagExporter", "PushdiagRender", "FixtureKit", "TestSupport"],
            swiftSettings: strict),
        // The pushdiag executable as users run it: outputs, exit codes, docs, the lab.
        .testTarget(
            name: "PushdiagCLITests", dependencies: ["PushdiagCore", "PushdiagIO", "PushdiagRender", "FixtureKit", "TestSupport"], swiftSettings: strict),
    ]
)
