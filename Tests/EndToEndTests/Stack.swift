import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The three real executables on free ports, with a PostgreSQL server of their own (so that a test may restart
/// it without disturbing other suites), driven only through the gateway.
///
/// Executables come from `BOOKMOBILE_BIN_DIR` (set by `make test`) or `.build/debug`. Each service's output goes
/// to a log file that tests may read. `shutdown()` must be called at the end of the test.
final class Stack: @unchecked Sendable {
    enum Service: String, CaseIterable {
        case catalog, patron, gateway
        /// A second catalog replica on its own port, started only by stacks made with `catalogReplicas: 2`.
        case secondCatalog = "catalog-2"
        /// A second gateway on its own port, started only by stacks made with `gateways: 2` (`secondGateway`).
        case secondGateway = "gateway-2"
        /// A second patron replica on its own port (the gateway uses both), started only with `patronReplicas: 2`.
        case secondPatron = "patron-2"
    }

    let root: URL
    let workDir: URL
    let postgresPort: Int
    /// The port of a streaming replica of the stack's PostgreSQL that catalog reads from (`readReplica: true`).
    let replicaPort: Int?
    let ports: [Service: Int]
    let gateway: GatewayClient
    /// The second gateway of a stack made with `gateways: 2`, in front of the same services.
    let secondGateway: GatewayClient
    private let environment: [String: String]
    private let lock = NSLock()
    private var processes: [Service: ChildProcess] = [:]

    static let adminToken = "e2e-admin-token"

    /// Starts a stack, runs `body` against it, records any error with the tails of the services' logs, and
    /// always shuts the stack down.
    static func run(
        _ overrides: [String: String] = [:],
        catalogReplicas: Int = 1,
        patronReplicas: Int = 1,
        gateways: Int = 1,
        readReplica: Bool = false,
        launch: Bool = true,
        insideAnother: Bool = false,
        _ body: (Stack) async throws -> Void
    ) async throws {
        // A stack started inside another's body (two libraries talking) runs in the outer one's slot: waiting for a
        // slot of its own while holding one could wait forever.
        if !insideAnother { await StackSlots.shared.acquire() }
        let stack: Stack
        do {
            stack = try await start(
                overrides,
                catalogReplicas: catalogReplicas,
                patronReplicas: patronReplicas,
                gateways: gateways,
                readReplica: readReplica,
                launch: launch
            )
        } catch {
            if !insideAnother { await StackSlots.shared.release() }
            throw error
        }
        do {
            try await body(stack)
        } catch {
            Issue.record("\(error)\n\(stack.logTails())")
        }
        await stack.shutdown()
        if !insideAnother { await StackSlots.shared.release() }
    }

    /// Starts PostgreSQL, creates both databases and starts the three services; returns once the gateway is ready.
    /// A port another process took between `FreePort`'s check and a service's bind makes that service exit with
    /// "Address already in use", or the stack's PostgreSQL fail to start ("could not start server", seen once in a full
    /// run on 2026-11-26): the stack is then started again on other ports (up to three times).
    /// Without `launch`, the services are not started (`launchAll()` starts them).
    static func start(
        _ overrides: [String: String] = [:],
        catalogReplicas: Int = 1,
        patronReplicas: Int = 1,
        gateways: Int = 1,
        readReplica: Bool = false,
        launch: Bool = true
    ) async throws -> Stack {
        for attempt in 1...3 {
            do {
                return try await startOnce(
                    overrides,
                    catalogReplicas: catalogReplicas,
                    patronReplicas: patronReplicas,
                    gateways: gateways,
                    readReplica: readReplica,
                    launch: launch
                )
            } catch let error as StackError
                where (error.description.contains("Address already in use") || error.description.contains("could not start server")) && attempt < 3
            {
                continue
            }
        }
        throw StackError("unreachable")
    }

    private static func startOnce(
        _ overrides: [String: String],
        catalogReplicas: Int,
        patronReplicas: Int,
        gateways: Int,
        readReplica: Bool,
        launch: Bool
    ) async throws -> Stack {
        let stack = try Stack(
            overrides: overrides,
            catalogReplicas: catalogReplicas,
            patronReplicas: patronReplicas,
            gateways: gateways,
            readReplica: readReplica
        )
        do {
            try await stack.startPostgres()
            for database in ["catalog", "patron"] {
                try await stack.run(
                    "/usr/bin/psql",
                    ["-q", "-h", "127.0.0.1", "-p", "\(stack.postgresPort)", "-U", "postgres", "-c", "CREATE DATABASE \(database)"]
                )
            }
            if let replicaPort = stack.replicaPort {
                try await stack.run(
                    stack.root.appendingPathComponent("scripts/postgres.sh").path,
                    ["replica", "\(stack.postgresPort)", stack.workDir.appendingPathComponent("pg-replica").path, "\(replicaPort)"],
                    environment: ["PG_FAST": "1"]
                )
            }
            if launch { try await stack.launchAll() }
        } catch {
            let logs = stack.logTails()
            await stack.shutdown()
            throw StackError("\(error)\n\(logs)")
        }
        return stack
    }

    /// The services this stack runs.
    let services: [Service]

    private init(overrides: [String: String], catalogReplicas: Int, patronReplicas: Int, gateways: Int, readReplica: Bool) throws {
        services =
            [.catalog, .patron, .gateway] + (catalogReplicas > 1 ? [.secondCatalog] : []) + (patronReplicas > 1 ? [.secondPatron] : [])
            + (gateways > 1 ? [.secondGateway] : [])
        root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        workDir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bookmobile-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workDir, withIntermediateDirectories: true)
        postgresPort = try FreePort.next()
        let replicaPort = readReplica ? try FreePort.next(avoiding: [postgresPort]) : nil
        self.replicaPort = replicaPort
        var ports: [Service: Int] = [:]
        for service in Service.allCases {
            ports[service] = try FreePort.next(avoiding: [postgresPort] + (replicaPort.map { [$0] } ?? []) + Array(ports.values))
        }
        let catalogURLs = (catalogReplicas > 1 ? [ports[.catalog]!, ports[.secondCatalog]!] : [ports[.catalog]!]).map { "http://127.0.0.1:\($0)" }
        let patronURLs = (patronReplicas > 1 ? [ports[.patron]!, ports[.secondPatron]!] : [ports[.patron]!]).map { "http://127.0.0.1:\($0)" }
        self.ports = ports
        let database = "postgres://postgres@127.0.0.1:\(postgresPort)"
        let gatewayURL = "http://127.0.0.1:\(ports[.gateway]!)"
        environment = ProcessInfo.processInfo.environment.merging(
            [
                "GATEWAY_PORT": "\(ports[.gateway]!)", "CATALOG_PORT": "\(ports[.catalog]!)", "PATRON_PORT": "\(ports[.patron]!)",
                "CATALOG_DATABASE_URL": "\(database)/catalog", "PATRON_DATABASE_URL": "\(database)/patron",
                "CATALOG_URLS": catalogURLs.joined(separator: ","), "PATRON_URLS": patronURLs.joined(separator: ","),
                "PUBLIC_URL": gatewayURL, "SERVICE_TOKEN": "e2e-service-token", "JWT_SECRET": "e2e-jwt-secret-0123456789abcdef0123456789",
                "ADMIN_TOKEN": Self.adminToken, "BLOB_DIR": workDir.appendingPathComponent("blobs").path, "LOG_LEVEL": "info",
                "BCRYPT_COST": "4", "REPLICA_DOWN_FOR": "1s", "UPSTREAM_TIMEOUT": "10s", "BASIC_AUTH_CACHE_TTL": "1s", "SESSION_CHECK_TTL": "1s",
            ].merging(replicaPort.map { ["CATALOG_READ_DATABASE_URLS": "postgres://postgres@127.0.0.1:\($0)/catalog"] } ?? [:]) { $1 }
                .merging(overrides) { $1 }
        ) { $1 }
        gateway = GatewayClient(base: gatewayURL)
        secondGateway = GatewayClient(base: "http://127.0.0.1:\(ports[.secondGateway]!)")
    }

    static var binDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["BOOKMOBILE_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug").standardized
    }

    func logFile(_ service: Service) -> URL { workDir.appendingPathComponent("\(service.rawValue).log") }

    /// Everything the service has logged so far (across restarts).
    func log(_ service: Service) -> String { (try? String(contentsOf: logFile(service), encoding: .utf8)) ?? "" }

    /// The last lines of every service's log, for a failure message.
    func logTails() -> String {
        services.map { service in
            let log = log(service)
            // A crash's backtrace runs long: show where it starts rather than the last threads' stacks.
            if let crash = log.range(of: "*** Program crashed") ?? log.range(of: "Fatal error") {
                let start = log.index(crash.lowerBound, offsetBy: -1500, limitedBy: log.startIndex) ?? log.startIndex
                return "--- \(service.rawValue) log (crash):\n\(log[start...].prefix(6000))"
            }
            return "--- \(service.rawValue) log (tail):\n\(log.suffix(2000))"
        }.joined(separator: "\n")
    }

    /// Starts (or restarts) one service; its output is appended to its log file.
    func launch(_ service: Service) throws {
        let executable =
            service == .secondCatalog ? "catalog" : service == .secondGateway ? "gateway" : service == .secondPatron ? "patron" : service.rawValue
        var environment = self.environment
        if service == .secondGateway { environment["GATEWAY_PORT"] = "\(ports[.secondGateway]!)" }
        if service == .secondPatron { environment["PATRON_PORT"] = "\(ports[.secondPatron]!)" }
        if service == .secondCatalog {
            environment["CATALOG_PORT"] = "\(ports[.secondCatalog]!)"
            // With object storage, each replica has a folder of its own, as on separate nodes.
            if environment["BLOB_STORE"] != nil { environment["BLOB_DIR"] = workDir.appendingPathComponent("blobs-2").path }
        }
        let child = try ChildProcess(
            Self.binDirectory.appendingPathComponent(executable).path,
            executable == "catalog" ? ["serve"] : [],
            environment: environment,
            output: logFile(service)
        )
        lock.withLock { processes[service] = child }
    }

    /// The resident memory of a running service, in bytes (`VmRSS` of `/proc/<pid>/status`).
    func residentBytes(_ service: Service) -> Int? {
        guard let child = lock.withLock({ processes[service] }),
            let status = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }

    /// Starts every service and waits until the stack is ready.
    func launchAll() async throws {
        for service in services { try launch(service) }
        try await waitUntilReady()
    }

    /// Runs one of the executables (`catalog backup DIR`, ...) with the services' environment; returns its output.
    @discardableResult
    func command(_ executable: String, _ arguments: [String]) async throws -> String {
        let output = workDir.appendingPathComponent("command-\(UUID().uuidString.prefix(8)).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try ChildProcess(Self.binDirectory.appendingPathComponent(executable).path, arguments, environment: environment, output: output)
        let status = await child.wait()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw StackError("\(executable) \(arguments.joined(separator: " ")) failed (\(status)): \(text)") }
        return text
    }

    /// The process id of a service's running process; nil when it is not running.
    func pid(_ service: Service) -> Int32? {
        guard let child = lock.withLock({ processes[service] }), child.isRunning else { return nil }
        return child.pid
    }

    /// Sends `signal` to a service and, when `wait` is set, returns its exit status once it has exited.
    @discardableResult
    func stop(_ service: Service, signal: Int32 = SIGTERM, wait: Bool = true) async -> Int32? {
        guard let child = lock.withLock({ processes[service] }), child.isRunning else { return nil }
        child.signal(signal)
        return wait ? await child.wait() : nil
    }

    /// Stops the stack's PostgreSQL: `fast` as a restart does, `immediate` as a crash does.
    func stopPostgres(mode: String = "fast") async throws {
        try await run(
            root.appendingPathComponent("scripts/postgres.sh").path,
            ["stop", workDir.appendingPathComponent("pg").path],
            environment: ["PG_STOP_MODE": mode]
        )
    }

    /// Starts the stack's PostgreSQL; without waiting for the disk at each commit (`PG_FAST`) unless the stack was made
    /// with `PG_FAST: 0` (a crash then loses no acknowledged commit).
    func startPostgres() async throws {
        try await run(
            root.appendingPathComponent("scripts/postgres.sh").path,
            ["start", workDir.appendingPathComponent("pg").path, "\(postgresPort)"],
            environment: ["PG_FAST": environment["PG_FAST"] ?? "1"]
        )
    }

    /// Polls `/health/ready` on the gateway (which checks its upstreams) until it answers 200.
    func waitUntilReady(timeout: Duration = .seconds(180)) async throws {
        try await eventually(timeout: timeout, "the stack never became ready (the services' log tails follow)") {
            // A service that could not bind its port will never be ready: say so at once (`start` tries other ports).
            if let service = services.first(where: { log($0).contains("Address already in use") }) {
                throw StackError("\(service.rawValue): Address already in use")
            }
            guard (try? await gateway.call(.GET, "/health/ready").status) == 200 else { return false }
            guard services.contains(.secondGateway) else { return true }
            return (try? await secondGateway.call(.GET, "/health/ready").status) == 200
        }
    }

    /// Stops the services and PostgreSQL and removes the work folder.
    func shutdown() async {
        for service in Service.allCases { await stop(service, signal: SIGKILL) }
        // A service that crashed is worth its whole log, kept beside the work folder, whatever the test concluded.
        for service in services where log(service).contains("*** Program crashed") {
            let kept = workDir.deletingLastPathComponent().appendingPathComponent("\(workDir.lastPathComponent)-\(service.rawValue)-crash.log")
            try? FileManager.default.copyItem(at: logFile(service), to: kept)
            print("\(service.rawValue) crashed; its log: \(kept.path)")
        }
        if replicaPort != nil {
            _ = try? await run(root.appendingPathComponent("scripts/postgres.sh").path, ["stop", workDir.appendingPathComponent("pg-replica").path])
        }
        try? await stopPostgres()
        try? FileManager.default.removeItem(at: workDir)
    }

    /// Runs one SQL statement in the stack's `database` (catalog or patron) and returns its rows, one per line,
    /// cells separated by `|`.
    func sql(_ database: String, _ statement: String) async throws -> [String] {
        let output = workDir.appendingPathComponent("sql-\(UUID().uuidString.prefix(8)).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try ChildProcess(
            "/usr/bin/psql",
            ["-qAt", "-h", "127.0.0.1", "-p", "\(postgresPort)", "-U", "postgres", "-d", database, "-c", statement],
            environment: ProcessInfo.processInfo.environment,
            output: output
        )
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard await child.wait() == 0 else { throw StackError("psql failed: \(text)") }
        return ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) async throws {
        let output = workDir.appendingPathComponent("command-\(UUID().uuidString.prefix(8)).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try ChildProcess(executable, arguments, environment: ProcessInfo.processInfo.environment.merging(extra) { $1 }, output: output)
        guard await child.wait() == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw StackError("\(executable) \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }
}

struct StackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A free port below the kernel's ephemeral range (32768-60999), so that no outgoing connection of the many tests running
/// at once can take it between this check and the service's own bind (which happened with ports the kernel picked).
/// A port is handed out once per test process, so that stacks starting at the same time never pick the same one.
enum FreePort {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var handedOut = Set<Int>()

    static func next(avoiding taken: [Int] = []) throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_000)
            guard !taken.contains(port), isFree(port), lock.withLock({ handedOut.insert(port).inserted }) else { continue }
            return port
        }
        throw StackError("no free port found")
    }

    static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = INADDR_ANY
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
