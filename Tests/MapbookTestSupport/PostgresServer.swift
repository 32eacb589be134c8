import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A PostgreSQL 15 for the tests (tools/pg/postgres.sh: initdb in a temporary folder, a free
/// loopback port), started once per test process on first use and stopped when it exits;
/// each caller gets a database of its own in it.
public enum PostgresServer {
    public static let initdb = "/usr/lib/postgresql/15/bin/initdb"

    /// Tests that need it: with `CI=true` a server that cannot start is a failure, not a skip.
    public static var required: ConditionTrait {
        .enabled(if: FileManager.default.isExecutableFile(atPath: initdb) || ExternalTools.isCI, "PostgreSQL 15 is not installed; run tools/setup")
    }

    struct Running: Sendable {
        var folder: String
        var port: Int
    }

    nonisolated(unsafe) static var running: Result<Running, ExternalTools.ToolError>?
    static let lock = NSLock()

    /// A new, empty database on the shared server: its URL.
    public static func database() throws -> String {
        let server = try start()
        let name = "t\(UInt64.random(in: 0...UInt64.max))"
        let (status, output) = try ExternalTools.run("/usr/lib/postgresql/15/bin/createdb", ["-h", "127.0.0.1", "-p", String(server.port), "-U", "mapbook", name])
        guard status == 0 else { throw ExternalTools.ToolError(output: "createdb: \(output)") }
        return "postgres://mapbook@127.0.0.1:\(server.port)/\(name)"
    }

    static func start() throws -> Running {
        lock.lock()
        defer { lock.unlock() }
        if let running { return try running.get() }
        let folder = NSTemporaryDirectory() + "mapbook-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let script = Fixtures.repositoryRoot.appendingPathComponent("tools/pg/postgres.sh").path
        let (status, output) = try ExternalTools.runDetached([script, "start", folder])
        guard status == 0, let line = output.split(separator: "\n").last, let port = Int(line.split(separator: ":").last?.split(separator: "/").first ?? "") else {
            let failure = ExternalTools.ToolError(output: "tools/pg/postgres.sh start: \(output)")
            running = .failure(failure)
            throw failure
        }
        let server = Running(folder: folder, port: port)
        running = .success(server)
        stopFolder = folder
        atexit {
            guard let folder = PostgresServer.stopFolder else { return }
            let script = Fixtures.repositoryRoot.appendingPathComponent("tools/pg/postgres.sh").path
            _ = try? ExternalTools.run(script, ["stop", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        return server
    }

    nonisolated(unsafe) static var stopFolder: String?
}
