// swift-tools-version: 6.3
import PackageDescription

/// `swift build --traits PostgreSQL` adds the PostgreSQL store. It is a trait because PostgresNIO brings
/// SwiftNIO and NIOSSL (BoringSSL), which more than double a first build (README, "Running on PostgreSQL").
let postgreSQL: Set<String> = ["PostgreSQL"]
/// `swift build --traits MetricsEndpoint` adds the HTTP endpoint `rederive watch --metrics-address` serves
/// (SwiftNIO's HTTP/1 server and swift-prometheus); a trait for the same reason (BENCHMARKS.md, "First build").
let metricsEndpoint: Set<String> = ["MetricsEndpoint"]

let package = Package(
    name: "rederive",
    products: [
        .library(name: "Rederive", targets: ["Rederive"]),
        .library(name: "RederiveSQLite", targets: ["RederiveSQLite"]),
        // Empty unless built with the PostgreSQL trait.
        .library(name: "RederivePostgres", targets: ["RederivePostgres"]),
        .library(name: "RederiveMemory", targets: ["RederiveMemory"]),
        .library(name: "RederiveStoreTesting", targets: ["RederiveStoreTesting"]),
        .library(name: "RederiveCLI", targets: ["RederiveCLI"]),
        .library(name: "RederiveReport", targets: ["RederiveReport"]),
        .library(name: "RederiveWatch", targets: ["RederiveWatch"]),
        // Empty unless built with the MetricsEndpoint trait.
        .library(name: "RederiveMetricsEndpoint", targets: ["RederiveMetricsEndpoint"]),
        .library(name: "RoomScan", targets: ["RoomScan"]),
        .executable(name: "rederive", targets: ["rederive"]),
    ],
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL store (RederivePostgres, on PostgresNIO)."),
        .trait(
            name: "MetricsEndpoint",
            description: "The watcher's HTTP endpoint: /metrics, /healthz, /readyz (RederiveMetricsEndpoint, on SwiftNIO)."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // `swift package generate-documentation --target Rederive` builds the DocC catalog; nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // zlib, seen only by RederiveCodec.
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Payload formats: zlib, raw deflate, gzip and plain JSON, with a bounded inflate. libdeflate,
        // about twice as fast as zlib on whole payloads, is loaded at run time when the system has it.
        .target(
            name: "RederiveCodec",
            dependencies: ["CZlib"]
        ),
        // The one JSON scanner: RoomScan's decoder reads with it, `import` checks files with it.
        .target(name: "RederiveJSON"),
        // The engine: processors, pipelines, stamps, the runner, progress and the store interface.
        .target(
            name: "Rederive",
            dependencies: [
                "RederiveCodec",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The SQL both SQL stores share, each in its own dialect: a pipeline's quoted names, the tables
        // and columns it needs, the rows of a pending query. Not a product: only the stores use it.
        .target(
            name: "RederiveSQL",
            dependencies: ["Rederive"]
        ),
        // The SQLite store, built on GRDB.
        .target(
            name: "RederiveSQLite",
            dependencies: [
                "Rederive",
                "RederiveSQL",
                "RederiveCodec",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own API, for what GRDB does not wrap: incremental BLOB reads of payloads.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The in-memory store: every store protocol, nothing on disk, for apps' own tests.
        .target(
            name: "RederiveMemory",
            dependencies: ["Rederive", "RederiveCodec"]
        ),
        // The store conformance suite as checks a store's own tests run against it: every store in this
        // package passes it, and a store written elsewhere runs it the same way. No test framework.
        .target(
            name: "RederiveStoreTesting",
            dependencies: ["Rederive", "RederiveCodec"]
        ),
        // The PostgreSQL store, for many workers on many hosts; its sources are empty without the trait.
        .target(
            name: "RederivePostgres",
            dependencies: [
                "Rederive",
                "RederiveSQL",
                "RederiveCodec",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: postgreSQL)),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Self-contained HTML reports with inline SVG charts: a dry run's changes, a database's state.
        // Works on the store interfaces, so on any store.
        .target(
            name: "RederiveReport",
            dependencies: ["Rederive"]
        ),
        // Continuous derivation: a watcher that derives records as they become stale, as a service.
        .target(
            name: "RederiveWatch",
            dependencies: [
                "Rederive",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The watcher's HTTP endpoint as a service: /metrics in Prometheus' text format, /healthz, /readyz.
        // Its sources are empty without the MetricsEndpoint trait.
        .target(
            name: "RederiveMetricsEndpoint",
            dependencies: [
                "Rederive",
                "RederiveWatch",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: metricsEndpoint)),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
            ]
        ),
        // Every subcommand, reusable by an app's own executable with its own pipelines.
        .target(
            name: "RederiveCLI",
            dependencies: [
                "Rederive",
                "RederiveReport",
                "RederiveWatch",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "RederiveSQLite",
                .target(name: "RederivePostgres", condition: .when(traits: postgreSQL)),
                .target(name: "RederiveMetricsEndpoint", condition: .when(traits: metricsEndpoint)),
                "RederiveCodec",
                "RederiveJSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The built-in pipeline: room facts from Apple RoomPlan exports.
        .target(
            name: "RoomScan",
            dependencies: ["Rederive", "RederiveJSON"],
            path: "Pipelines/RoomScan"
        ),
        // Realistic synthetic RoomPlan exports for `rederive generate` and the tests; not part of the RoomScan product.
        .target(name: "RoomScanGenerator", dependencies: ["Rederive", "RoomScan"], path: "Pipelines/RoomScanGenerator"),
        // The `JSONDecoder` reading of a RoomPlan export: the reference the tests hold RoomScan's own
        // decoder to, and the seeds' pattern in the benchmarks. Not part of any product.
        .target(
            name: "RoomScanReference",
            dependencies: ["RoomScan"],
            path: "Tests/RoomScanReference"
        ),
        .executableTarget(
            name: "rederive",
            dependencies: ["Rederive", "RederiveCLI", "RoomScan", "RoomScanGenerator"]
        ),
        // A rederive executable whose processor traps on some records, launched by the --isolate tests.
        .executableTarget(
            name: "rederive-trap-fixture",
            dependencies: ["Rederive", "RederiveCLI"],
            path: "Tests/TrapFixture"
        ),
        // Benchmarks only: the inflate-only floor and an inline-layout runner (Benchmarks/run.sh).
        .executableTarget(
            name: "rederive-floor",
            dependencies: [
                "RederiveSQLite", "RederiveCodec", "Rederive", "RoomScan", "RoomScanReference",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/Floor"
        ),
        // Benchmarks only: batches sized toward a target duration (Benchmarks/adaptive_batch.sh).
        .executableTarget(
            name: "rederive-adaptive-batch",
            dependencies: [
                "RederiveSQLite", "RederiveCodec", "Rederive",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/AdaptiveBatch"
        ),
        // Bounds how many tests run at once in the test process (Tests/TestParallelism/TestParallelism.c).
        .target(name: "TestParallelism", path: "Tests/TestParallelism"),
        // What several test targets share: the test pipelines, temporary SQLite databases and an app's
        // connection to them, the README's pipeline, the package's root. Not a product.
        .target(
            name: "RederiveTestSupport",
            dependencies: [
                "Rederive",
                "RederiveSQLite",
                "RederiveCodec",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/RederiveTestSupport"
        ),
        .testTarget(
            name: "RederiveCodecTests",
            dependencies: ["RederiveCodec", "TestParallelism"]
        ),
        .testTarget(
            name: "RederiveJSONTests",
            dependencies: ["RederiveJSON"]
        ),
        .testTarget(
            name: "RederiveTests",
            dependencies: [
                "Rederive",
                "RederiveTestSupport",
                "RederiveMemory",
                "RederiveSQLite",
                "RederiveCodec",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The in-memory store itself: the test its article shows an app writing.
        .testTarget(
            name: "RederiveMemoryTests",
            dependencies: ["Rederive", "RederiveMemory", "RederiveTestSupport"]
        ),
        // The SQLite store itself: its SQL, an app's own connections, migrations, backups, reset, and
        // the values SQLite holds. The engine's tests run on it too, but test the engine.
        .testTarget(
            name: "RederiveSQLiteTests",
            dependencies: [
                "Rederive",
                "RederiveCodec",
                "RederiveSQLite",
                "RederiveSQL",
                "RederiveTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The watcher: its passes and lanes, its metrics, and the in-app example of docs/watching.md.
        .testTarget(
            name: "RederiveWatchTests",
            dependencies: [
                "Rederive",
                "RederiveWatch",
                "RederiveTestSupport",
                "RederiveSQLite",
                "RederiveMemory",
                "RederiveCodec",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "RederiveReportTests",
            dependencies: ["RederiveReport", "Rederive", "RederiveSQLite", "RederiveCodec"]
        ),
        .testTarget(
            name: "RoomScanTests",
            dependencies: [
                "RoomScan", "RoomScanGenerator", "RoomScanReference", "Rederive", "RederiveSQLite", "RederiveCodec",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            resources: [.copy("Fixtures")]
        ),
        // The endpoint's tests, a real Prometheus server's scrape among them; empty without the trait.
        .testTarget(
            name: "RederiveMetricsEndpointTests",
            dependencies: [
                "Rederive",
                "RederiveMetricsEndpoint",
                "RederiveWatch",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: metricsEndpoint)),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
            ]
        ),
        // Throwaway PostgreSQL clusters, relays that cut or fault their connections, network namespaces,
        // and fixtures on them, for the PostgreSQL store's tests and the CLI's. Not a product; empty
        // without the PostgreSQL trait.
        .target(
            name: "RederivePostgresTestSupport",
            dependencies: [
                "Rederive",
                "RederiveTestSupport",
                "RederiveCLI",
                "RoomScan",
                .target(name: "RederivePostgres", condition: .when(traits: postgreSQL)),
            ],
            path: "Tests/RederivePostgresTestSupport"
        ),
        // The PostgreSQL store itself, through its own API: its SQL, claims, commits, counts and errors.
        // The suites that drive it through the CLI are in RederiveCLITests. Empty without the trait.
        .testTarget(
            name: "RederivePostgresTests",
            dependencies: [
                "Rederive",
                "RederiveSQL",
                "RederiveCodec",
                "RederiveStoreTesting",
                "RoomScan",
                "RederiveTestSupport",
                .target(name: "RederivePostgres", condition: .when(traits: postgreSQL)),
                .target(name: "RederivePostgresTestSupport", condition: .when(traits: postgreSQL)),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: postgreSQL)),
            ]
        ),
        .testTarget(
            name: "RederiveCLITests",
            dependencies: [
                "RederiveCLI",
                "RederiveTestSupport",
                .target(name: "RederivePostgres", condition: .when(traits: postgreSQL)),
                .target(name: "RederivePostgresTestSupport", condition: .when(traits: postgreSQL)),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: metricsEndpoint)),
                "RederiveMemory",
                "RederiveStoreTesting",
                "RoomScan",
                "RoomScanGenerator",
                "Rederive",
                "RederiveJSON",
                "RederiveSQLite",
                "RederiveCodec",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = settings
}
