import ArgumentParser
import Foundation
import PatronService
import ServiceSupport

/// `patron serve` (the default) runs the service; `patron backup DIR` and `patron restore DIR` back its database up
/// and load it into an empty one (docs/DEPLOY.md).
@main
struct PatronCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patron",
        abstract: "Bookmobile patron service",
        subcommands: [Serve.self, Backup.self, Restore.self],
        defaultSubcommand: Serve.self
    )

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the HTTP service (configuration from the environment).")

        func run() async throws {
            let config = ServiceConfig()
            let app = try await exitingOnInvalidConfiguration("patron") { try await buildPatronApplication(config: config) }
            try await app.runUntilTerminated(config: config)
        }
    }

    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Back the patron database up into DIR/patron while the service runs.")

        @Argument(help: "The backup's folder") var directory: String

        func run() async throws {
            try await PatronBackup.backup(config: ServiceConfig(), into: URL(fileURLWithPath: directory))
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Load DIR/patron into an empty patron database.")

        @Argument(help: "The backup's folder") var directory: String

        func run() async throws {
            try await PatronBackup.restore(config: ServiceConfig(), from: URL(fileURLWithPath: directory))
        }
    }
}
