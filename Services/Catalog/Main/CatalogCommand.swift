import ArgumentParser
import CatalogService
import Foundation
import ServiceSupport

/// `catalog serve` (the default) runs the service; `catalog ingest PATH...` ingests books in bulk;
/// `catalog generate-covers` draws covers for books ingested without one before covers were generated;
/// `catalog reread-metadata` reads stored EPUBs again for what a newer reader derives; `catalog migrate-blobs` copies
/// the blobs of a local folder into object storage; `catalog backup DIR` and `catalog restore DIR` back the database and
/// the blobs up while the service runs, and load them into an empty stack (docs/DEPLOY.md).
@main
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Bookmobile catalog service",
        subcommands: [Serve.self, Ingest.self, GenerateCovers.self, RereadMetadata.self, MigrateBlobs.self, Backup.self, Restore.self],
        defaultSubcommand: Serve.self
    )

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the HTTP service (configuration from the environment).")

        func run() async throws {
            let config = ServiceConfig()
            let app = try await exitingOnInvalidConfiguration("catalog") { try await buildCatalogApplication(config: config) }
            try await app.runUntilTerminated(config: config)
        }
    }

    struct Ingest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ingest books (EPUB, PDF, audiobooks) and folders of them.")

        @Argument(help: "Book files (EPUB, PDF, M4B, MP3, .audiobook, ZIP of tracks) or folders to walk; a folder of MP3 tracks is one audiobook")
        var paths: [String]
        @Option(help: "Copies of each book") var copies = 1
        @Flag(help: "Mark the books open access") var openAccess = false
        @Flag(help: "Let a file with an existing book's ISBN replace that book (otherwise it is refused)") var replace = false
        @Option(help: "Files ingested at once") var concurrency = 4

        func run() async throws {
            let summary = try await BulkIngest.run(
                paths: paths,
                copies: copies,
                openAccess: openAccess,
                replace: replace,
                concurrency: concurrency,
                config: ServiceConfig()
            )
            if summary.ingested + summary.unchanged == 0 && !summary.refused.isEmpty { throw ExitCode(1) }
        }
    }

    struct GenerateCovers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate-covers",
            abstract: "Draw a cover for every book that has none (a one-off job; safe to run again)."
        )

        func run() async throws {
            _ = try await CoverBackfill.run(config: ServiceConfig())
        }
    }

    struct RereadMetadata: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reread-metadata",
            abstract: "Read stored EPUBs again for what this version derives from them (accessibility, page counts); safe to run again."
        )

        func run() async throws {
            _ = try await MetadataReread.run(config: ServiceConfig())
        }
    }

    struct MigrateBlobs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate-blobs",
            abstract: "Copy every blob of a local folder into the object storage BLOB_STORE names (safe to run again)."
        )

        @Option(help: "The folder the blobs are in (default: BLOB_DIR)") var from: String?
        @Option(help: "Blobs sent at once") var concurrency = 4

        func run() async throws {
            let summary = try await BlobMigration.run(config: ServiceConfig(), from: from, concurrency: concurrency)
            print("copied \(summary.copied) blobs, \(summary.alreadyThere) already there, \(summary.damaged) damaged (not copied)")
            if summary.damaged > 0 { throw ExitCode(1) }
        }
    }

    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Back the catalog database and every blob it names up into DIR/catalog while the service runs."
        )

        @Argument(help: "The backup's folder (a blob already there from an earlier backup is not copied again)") var directory: String

        func run() async throws {
            _ = try await CatalogBackup.run(config: ServiceConfig(), into: URL(fileURLWithPath: directory))
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Load DIR/catalog into an empty catalog database and its blob store.")

        @Argument(help: "The backup's folder") var directory: String

        func run() async throws {
            try await CatalogRestore.run(config: ServiceConfig(), from: URL(fileURLWithPath: directory))
        }
    }
}
