import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A real S3 server for the tests: OpenStack Swift with its s3api middleware
/// (tools/s3/swift-s3.sh: a one-node installation in a temporary folder, free loopback
/// ports), started once per test process on first use and stopped when it exits; each caller
/// gets a bucket of its own. The credentials are put in the process's environment
/// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION), where the portal reads them.
public enum S3Server {
    public static let proxy = "/usr/bin/swift-proxy-server"
    public static let accessKey = "mapbook:portal"
    public static let secretKey = "mapbook-secret"
    public static let region = "us-east-1"

    /// Tests that need it: with `CI=true` a server that cannot start is a failure, not a skip.
    public static var required: ConditionTrait {
        .enabled(if: FileManager.default.isExecutableFile(atPath: proxy) || ExternalTools.isCI, "OpenStack Swift is not installed; run tools/setup")
    }

    public struct Running: Sendable {
        public var folder: String
        public var endpoint: String
        /// Every request the proxy answered, one line each (method, path, status, Range).
        public var log: String { folder + "/proxy.log" }
    }

    static let server = ToolServer<Running>(script: "tools/s3/swift-s3.sh", prefix: "mapbook-s3") { folder, line in
        // The script's last line is the proxy's endpoint.
        guard line.hasPrefix("http://") else { return nil }
        setenv("AWS_ACCESS_KEY_ID", accessKey, 1)
        setenv("AWS_SECRET_ACCESS_KEY", secretKey, 1)
        setenv("AWS_REGION", region, 1)
        return Running(folder: folder, endpoint: String(line))
    }

    /// A new bucket name (made by the store on first use) and the server.
    public static func bucket() throws -> (url: String, server: Running) {
        let server = try start()
        return ("s3://t\(UInt64.random(in: 0...UInt64.max))", server)
    }

    /// The server, started on first use with the credentials put in the environment.
    public static func start() throws -> Running { try server.start() }

    /// The proxy's log lines, once `until` holds for them or 5 s have passed: its lines reach
    /// the log through a UDP listener, a moment after the request.
    public static func logLines(until: ([Substring]) -> Bool) throws -> [Substring] {
        let log = try start().log
        var lines: [Substring] = []
        for _ in 0..<50 {
            lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
            if until(lines) { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return lines
    }
}
