// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "bookmobile",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "catalog", targets: ["CatalogMain"]),
        .executable(name: "patron", targets: ["PatronMain"]),
        .executable(name: "gateway", targets: ["GatewayMain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
    ],
    targets: [
        // Wire models, book-state machine, problem details, JSON wire format. Foundation only.
        .target(name: "Shared", path: "Shared/Models", swiftSettings: swiftSettings),
        // Database plumbing: migrations, transactions, SQLSTATE helpers, the outbox, database readiness.
        .target(
            name: "PostgresSupport",
            dependencies: [
                "Shared", "ServiceSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/PostgresSupport",
            swiftSettings: swiftSettings
        ),
        // HTTP plumbing: configuration, logging/metrics bootstrap, middleware, internal HTTP client, health routes.
        // No database driver: the gateway links this and not PostgresSupport.
        .target(
            name: "ServiceSupport",
            dependencies: [
                "Shared", "SystemZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Shared/ServiceSupport",
            swiftSettings: swiftSettings
        ),
        // zlib for gzip at a chosen level (`Gzip`).
        .systemLibrary(name: "SystemZlib", path: "Shared/SystemZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libvips (Debian's libvips-dev) and a small C shim over its variadic API, for cover thumbnails.
        .systemLibrary(name: "CVips", path: "Services/Catalog/CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "Thumbnailer", dependencies: ["CVips"], path: "Services/Catalog/Thumbnailer"),
        .target(
            name: "CatalogService",
            dependencies: [
                "Shared", "PostgresSupport", "ServiceSupport", "Thumbnailer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Services/Catalog/Sources",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CatalogMain",
            dependencies: ["CatalogService", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Catalog/Main",
            swiftSettings: swiftSettings
        ),
        // libcurl speaks SMTP with STARTTLS for patron's mail (the runtime image has it for FoundationNetworking).
        .systemLibrary(name: "CCurl", path: "Services/Patron/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(
            name: "PatronService",
            dependencies: [
                "Shared", "PostgresSupport", "ServiceSupport", "CCurl",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Services/Patron/Sources",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PatronMain",
            dependencies: ["PatronService", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Patron/Main",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GatewayService",
            dependencies: [
                "Shared", "ServiceSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Gateway/Sources",
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/Web")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "GatewayMain",
            dependencies: ["GatewayService"],
            path: "Services/Gateway/Main",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "Shared", "ServiceSupport", "PostgresSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SharedTests",
            dependencies: [
                "Shared", "ServiceSupport", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/SharedTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogServiceTests",
            dependencies: [
                "CatalogService", "TestSupport", "Shared", "ServiceSupport", "PostgresSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Tests/CatalogServiceTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PatronServiceTests",
            dependencies: [
                "PatronService", "TestSupport", "Shared", "ServiceSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Tests/PatronServiceTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayServiceTests",
            dependencies: [
                "GatewayService", "CatalogService", "PatronService", "TestSupport", "Shared", "ServiceSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Tests/GatewayServiceTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "TestSupport", "Shared", "CatalogService",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Tests/EndToEndTests",
            swiftSettings: swiftSettings
        ),
    ]
)
