import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server for the tests started by a script of `tools/` (`SCRIPT start FOLDER`, `SCRIPT stop
/// FOLDER`: PostgreSQL, OpenStack Swift) in a temporary folder of its own, once per test
/// process on first use, and stopped with its folder removed when the process exits.
public final class ToolServer<Running: Sendable>: @unchecked Sendable {
    /// The script, relative to the repository's root, e.g. `tools/pg/postgres.sh`.
    let script: String
    /// The start of the folder's name in the temporary directory, e.g. `mapbook-pg`.
    let prefix: String
    /// What the script's last line of output says about the started server; nil when the line
    /// is not what the script prints on success. Called once, under the lock, so it may also
    /// set up what the server's clients need (environment variables).
    let parse: (_ folder: String, _ lastLine: Substring) -> Running?
    /// Guards `running`: tests run in parallel.
    let lock = NSLock()
    var running: Result<Running, ExternalTools.ToolError>?

    public init(script: String, prefix: String, parse: @escaping (_ folder: String, _ lastLine: Substring) -> Running?) {
        self.script = script
        self.prefix = prefix
        self.parse = parse
    }

    /// The server, started on the first call; a failure to start is kept and thrown again.
    public func start() throws -> Running {
        lock.lock()
        defer { lock.unlock() }
        if let running { return try running.get() }
        let folder = NSTemporaryDirectory() + "\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let path = Fixtures.repositoryRoot.appendingPathComponent(script).path
        let (status, output) = try ExternalTools.runDetached([path, "start", folder])
        if status == 0 { ToolServers.stopAtExit(script: path, folder: folder) }
        guard status == 0, let line = output.split(separator: "\n").last, let server = parse(folder, line) else {
            let failure = ExternalTools.ToolError(output: "\(script) start: \(output)")
            running = .failure(failure)
            throw failure
        }
        running = .success(server)
        return server
    }
}

/// The servers to stop when the test process exits: `atexit` takes a C function, which cannot
/// capture which server it stops.
enum ToolServers {
    nonisolated(unsafe) static var started: [(script: String, folder: String)] = []
    static let lock = NSLock()

    static func stopAtExit(script: String, folder: String) {
        lock.lock()
        defer { lock.unlock() }
        if started.isEmpty {
            atexit {
                for (script, folder) in ToolServers.started {
                    _ = try? ExternalTools.run(script, ["stop", folder])
                    try? FileManager.default.removeItem(atPath: folder)
                }
            }
        }
        started.append((script, folder))
    }
}
