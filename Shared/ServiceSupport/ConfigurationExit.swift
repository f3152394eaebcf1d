import Foundation

/// Runs a service's start-up: a configuration it refuses (`ServiceConfig.Invalid`) ends the process with the reason on
/// standard error and exit status 78 (EX_CONFIG), not with a crash report.
public func exitingOnInvalidConfiguration<T>(_ service: String, _ start: () async throws -> T) async throws -> T {
    do {
        return try await start()
    } catch let error as ServiceConfig.Invalid {
        FileHandle.standardError.write(Data("\(service): configuration refused: \(error.description)\n".utf8))
        exit(78)
    }
}
