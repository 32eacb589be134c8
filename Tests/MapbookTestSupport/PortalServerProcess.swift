import Foundation

/// A `mapbook portal serve --self-signed` on 127.0.0.1 with a fresh data folder, for tests.
///
/// It listens on a free port (printed at start), stops by itself after `lifetime` seconds even
/// if the test dies, and is stopped with SIGTERM by `stop()`.
public final class PortalServerProcess: @unchecked Sendable {
    public let data: String
    public private(set) var url = ""
    private let process = Process()
    private let output = Pipe()

    /// Adds users (name, password, admin) to a new data folder (or `data`), then starts the
    /// server. `store`: a PostgreSQL URL for the metadata (`--store`), else SQLite in the data folder.
    public init(users: [(name: String, password: String, admin: Bool)], lifetime: Int = 900, extraArguments: [String] = [], store: String? = nil, data: String? = nil) throws {
        self.data = data ?? NSTemporaryDirectory() + "mapbook-portal-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: self.data, withIntermediateDirectories: true)
        for user in users {
            let run = try MapbookBinary.run(
                ["portal", "user", "add", user.name, "--data", self.data, "--password-stdin"] + (user.admin ? ["--admin"] : []) + (store.map { ["--store", $0] } ?? []),
                stdin: user.password + "\n")
            guard run.status == 0 else { throw ServerError(message: "user add \(user.name) failed: \(run.stderr)") }
        }
        try start(extraArguments + (store.map { ["--store", $0] } ?? []), lifetime: lifetime)
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private func start(_ extra: [String], lifetime: Int) throws {
        process.executableURL = URL(fileURLWithPath: MapbookBinary.path)
        process.arguments = ["portal", "serve", "--data", data, "--self-signed", "--port", "0", "--log-level", "warning", "--stop-after", String(lifetime)] + extra
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line says where it listens: "Mapbook portal on https://127.0.0.1:PORT (data ...)".
        var line = Data()
        let handle = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte.first == 0x0A { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let start = text.range(of: "https://"), let end = text[start.lowerBound...].firstIndex(of: " ") else {
            process.terminate()
            throw ServerError(message: "the portal did not start: '\(text)'")
        }
        url = String(text[start.lowerBound..<end])
    }

    /// The server's self-signed certificate (a trust root for clients).
    public var certificate: String { data + "/tls/certificate.pem" }

    public var isRunning: Bool { process.isRunning }

    /// The server's process id.
    public var pid: pid_t { process.processIdentifier }

    /// Stops the server (SIGTERM: it finishes the requests under way) and waits for it.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    public func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Starts a new server on the same data folder (after `kill` or `stop`).
    public func restart() throws -> PortalServerProcess {
        try PortalServerProcess(reusing: data)
    }

    private init(reusing data: String) throws {
        self.data = data
        try start([], lifetime: 900)
    }

    /// Removes the data folder (the server must be stopped).
    public func removeData() {
        try? FileManager.default.removeItem(atPath: data)
    }

    deinit {
        stop()
    }
}
