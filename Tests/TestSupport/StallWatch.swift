import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Where every router test stands (starting its services, running its body and which request, or ending its
/// services), printed when the process gets SIGUSR2: `scripts/test.sh` sends it at a stall, before SIGQUIT, so that a
/// stalled test says which await it is stuck in (a thread dump cannot: a stalled test holds no thread).
public enum StallWatch {
    struct Entry {
        let test: String
        var phase: String
        var request: String?
        /// The app's services whose `run()` has not returned yet, by type.
        var running: [String: Int] = [:]
        let since: ContinuousClock.Instant
    }

    static let entries = Mutex<[Int: Entry]>([:])
    static let nextID = Atomic<Int>(0)
    nonisolated(unsafe) static let installed: any DispatchSourceSignal = {
        signal(SIGUSR2, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR2, queue: .global())
        source.setEventHandler { StallWatch.report() }
        source.resume()
        return source
    }()

    static func begin(_ test: String) -> Int {
        _ = installed
        let id = nextID.add(1, ordering: .relaxed).oldValue
        entries.withLock { $0[id] = Entry(test: test, phase: "starting services", request: nil, since: .now) }
        return id
    }

    static func update(_ id: Int, _ change: (inout Entry) -> Void) {
        entries.withLock {
            if var entry = $0[id] {
                change(&entry)
                $0[id] = entry
            }
        }
    }

    static func end(_ id: Int) { entries.withLock { _ = $0.removeValue(forKey: id) } }

    static func report() {
        let now = ContinuousClock.now
        let lines = entries.withLock { entries in
            entries.values.sorted { $0.since < $1.since }.map { entry in
                let services = entry.running.filter { $0.value > 0 }.keys.sorted().joined(separator: ", ")
                return "  \(entry.test): \(entry.phase)\(entry.request.map { ", request \($0)" } ?? "")"
                    + " (\(now - entry.since)); services running: \(services.isEmpty ? "none" : services)"
            }
        }
        let text = "==== STALL WATCH: router tests under way ====\n" + lines.joined(separator: "\n") + "\n"
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

extension ApplicationProtocol {
    /// `test(.router)`, watched by `StallWatch`.
    public func testRouter<Value>(
        test name: String = #function,
        file: String = #fileID,
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let id = StallWatch.begin("\(file) \(name)")
        defer { StallWatch.end(id) }
        let value = try await WatchedApplication(app: self, id: id).test(.router) { client in
            StallWatch.update(id) { $0.phase = "running its body" }
            let value = try await body(WatchedClient(client: client, id: id))
            StallWatch.update(id) {
                $0.phase = "ending services"
                $0.request = nil
            }
            return value
        }
        return value
    }
}

/// Records the request under way for `StallWatch`.
struct WatchedClient: TestClientProtocol {
    let client: any TestClientProtocol
    let id: Int

    var port: Int? { client.port }

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        StallWatch.update(id) { $0.request = "\(method) \(uri)" }
        defer { StallWatch.update(id) { $0.request = nil } }
        return try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
    }
}

/// The app under test, its services and its steps before the server starts reported to `StallWatch`.
struct WatchedApplication<App: ApplicationProtocol>: ApplicationProtocol {
    typealias Responder = App.Responder
    let app: App
    let id: Int

    var responder: App.Responder { get async throws { try await app.responder } }
    var server: HTTPServerBuilder { app.server }
    var eventLoopGroup: any EventLoopGroup { app.eventLoopGroup }
    var configuration: ApplicationConfiguration { app.configuration }
    var logger: Logger { app.logger }
    func onServerRunning(_ channel: any Channel) async { await app.onServerRunning(channel) }
    var services: [any Service] { app.services.map { WatchedService(service: $0, id: id) } }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] {
        app.processesRunBeforeServerStart.map { process in
            { [id] in
                StallWatch.update(id) { $0.phase = "running its steps before the server starts (migrations)" }
                try await process()
                StallWatch.update(id) { $0.phase = "starting services" }
            }
        }
    }
}

/// A service whose `run()` is counted while it lasts.
struct WatchedService: Service, CustomStringConvertible {
    let service: any Service
    let id: Int

    var description: String { String(describing: type(of: service)) }

    func run() async throws {
        let name = description
        StallWatch.update(id) { $0.running[name, default: 0] += 1 }
        defer { StallWatch.update(id) { $0.running[name, default: 0] -= 1 } }
        try await service.run()
    }
}
