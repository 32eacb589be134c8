import Foundation

/// Three (or `count`) `mapbook portal serve` processes behind nginx on loopback, sharing a
/// database of the tests' PostgreSQL and a bucket of their S3 server (tools/portal/cluster.sh).
/// The processes stop by themselves after `lifetime` seconds even if the test dies; `stop()`
/// (or deinit) stops nginx and them.
public final class PortalCluster: @unchecked Sendable {
    public let folder: String
    /// nginx's https URL.
    public let url: String
    public let store: String
    public let count: Int
    let script = Fixtures.repositoryRoot.appendingPathComponent("tools/portal/cluster.sh").path

    public init(count: Int = 3, users: [(name: String, password: String, admin: Bool)], lifetime: Int = 900) throws {
        folder = NSTemporaryDirectory() + "mapbook-cluster-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.count = count
        store = try PostgresServer.database()
        let (bucket, s3) = try S3Server.bucket()
        for user in users {
            let run = try MapbookBinary.run(
                ["portal", "user", "add", user.name, "--data", folder + "/admin", "--store", store, "--password-stdin"] + (user.admin ? ["--admin"] : []),
                stdin: user.password + "\n")
            guard run.status == 0 else { throw PortalServerProcess.ServerError(message: "user add \(user.name) failed: \(run.stderr)") }
        }
        let (status, output) = try ExternalTools.runDetached([
            "/usr/bin/env", "MAPBOOK=\(MapbookBinary.path)", "PORTAL_STORE=\(store)", "PORTAL_FILES=\(bucket)", "S3_ENDPOINT=\(s3.endpoint)",
            "PORTAL_STOP_AFTER=\(lifetime)", script, "start", folder, String(count),
        ])
        guard status == 0, let line = output.split(separator: "\n").last, line.hasPrefix("https://") else {
            _ = try? ExternalTools.runDetached([script, "stop", folder])
            throw PortalServerProcess.ServerError(message: "tools/portal/cluster.sh start: \(output)")
        }
        url = String(line)
    }

    /// Process `i`'s own URL (1-based), bypassing nginx.
    public func processURL(_ i: Int) throws -> String {
        "https://127.0.0.1:" + (try String(contentsOfFile: "\(folder)/p\(i).port", encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The certificate every process and nginx serve (a trust root for clients).
    public var certificate: String { folder + "/p1/tls/certificate.pem" }
    /// nginx's access log: one line per request, with the process that answered (`up=`).
    public var accessLog: String { folder + "/nginx/access.log" }

    /// SIGKILL to process `i`, as a crash would.
    public func kill(_ i: Int) throws {
        _ = try ExternalTools.runDetached([script, "kill", folder, String(i)])
    }

    /// Starts process `i` again on its port.
    public func revive(_ i: Int) throws {
        let (status, output) = try ExternalTools.runDetached([script, "revive", folder, String(i)])
        guard status == 0 else { throw PortalServerProcess.ServerError(message: "revive \(i): \(output)") }
    }

    public func stop() {
        _ = try? ExternalTools.runDetached([script, "stop", folder])
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
