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

    static let server = ToolServer<Running>(script: "tools/pg/postgres.sh", prefix: "mapbook-pg") { folder, line in
        // The script's last line is the server's URL, postgres://...:PORT/...
        Int(line.split(separator: ":").last?.split(separator: "/").first ?? "").map { Running(folder: folder, port: $0) }
    }

    /// A new, empty database on the shared server: its URL.
    public static func database() throws -> String {
        let server = try start()
        let name = "t\(UInt64.random(in: 0...UInt64.max))"
        let (status, output) = try ExternalTools.run("/usr/lib/postgresql/15/bin/createdb", ["-h", "127.0.0.1", "-p", String(server.port), "-U", "mapbook", name])
        guard status == 0 else { throw ExternalTools.ToolError(output: "createdb: \(output)") }
        return "postgres://mapbook@127.0.0.1:\(server.port)/\(name)"
    }

    static func start() throws -> Running { try server.start() }
}
