import Foundation
import MapbookInspection
import MapbookTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Crash safety proven by killing the real process (issue 17, item 5): SIGKILL at moments
/// spread over a run, chosen by the bytes the process has written (`/proc/PID/io`), never by
/// sleeping; each time the process had not finished, nothing is left under the final name,
/// and the next run succeeds.
@Suite struct CrashSafetyTests {
    /// Bytes the process has written so far (`wchar` of `/proc/PID/io`); nil once it is gone.
    static func written(_ pid: pid_t) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("wchar:") }.flatMap { Int64($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
    }

    /// Starts `mapbook` with `arguments` and this process's environment with `environment`
    /// added, output to /dev/null.
    static func spawn(_ arguments: [String], environment: [String: String] = [:]) throws -> pid_t {
        let argv = [MapbookBinary.path] + arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let envStrings = env.map { strdup("\($0.key)=\($0.value)") }
        defer { envStrings.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let cStrings = argv.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, argv[0], &actions, nil, cStrings + [nil], envStrings + [nil]) == 0 else {
            throw ExternalTools.ToolError(output: "cannot start \(argv[0])")
        }
        return pid
    }

    /// Waits for `pid`; its exit status, or nil when a signal ended it.
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    /// Runs `arguments` to the end, following its writes; the most it had written.
    static func runWatching(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32?, written: Int64) {
        let pid = try spawn(arguments, environment: environment)
        var most: Int64 = 0
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            most = max(most, written(pid) ?? most)
            usleep(200)
        }
        return (status & 0x7F == 0 ? (status >> 8) & 0xFF : nil, most)
    }

    /// Runs `arguments` and kills it with SIGKILL once it has written `bytes`; false when it
    /// ended before.
    static func kill(_ arguments: [String], environment: [String: String] = [:], afterWriting bytes: Int64) throws -> Bool {
        try send(SIGKILL, to: arguments, environment: environment, afterWriting: bytes) != nil
    }

    /// Runs `arguments` and sends it `signal` once it has written `bytes`; how it ended (its
    /// exit status, or nil when the signal ended it), or nil when it ended before.
    static func send(_ signal: Int32, to arguments: [String], environment: [String: String] = [:], afterWriting bytes: Int64) throws -> Int32?? {
        let pid = try spawn(arguments, environment: environment)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if let n = written(pid), n >= bytes {
                Glibc.kill(pid, signal)
                return .some(wait(pid))
            }
            usleep(100)
        }
        return nil
    }

    /// `create` interrupted by Ctrl-C or SIGTERM at moments of its run leaves nothing at all in
    /// the output's folder: neither its work files nor the archive's temporary file.
    @Test func createInterruptedLeavesNothingBehind() throws {
        let dir = try NapervilleSample.project()
        defer { dir.remove() }
        let out = dir.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let arguments = ["create", dir.path + "/project.yaml", "-o", out + "/Naperville.mmpk"]
        let whole = try Self.runWatching(arguments)
        try #require(whole.status == 0, "\(whole)")
        try FileManager.default.removeItem(atPath: out + "/Naperville.mmpk")
        for (k, signal) in [(1, SIGINT), (3, SIGTERM), (5, SIGINT), (7, SIGTERM)] {
            let at = whole.written * Int64(k) / 8
            let ended = try Self.send(signal, to: arguments, afterWriting: at)
            #expect(ended == .some(128 + signal), "create interrupted at \(at) bytes ended with \(String(describing: ended))")
            let left = try FileManager.default.contentsOfDirectory(atPath: out)
            #expect(left.isEmpty, "left after signal \(signal) at \(at) of \(whole.written) bytes: \(left)")
        }
    }

    /// `create` killed at 20 moments of its run (imports, tiles, locators, the archive): never
    /// a package under the final name, and the next run builds a valid one and removes what
    /// the killed runs left in the folder.
    @Test func createKilledAtTwentyMomentsLeavesNoPackageAndTheNextRunSucceeds() throws {
        let dir = try NapervilleSample.project()
        defer { dir.remove() }
        let output = dir.path + "/out/Naperville.mmpk"
        try FileManager.default.createDirectory(atPath: dir.path + "/out", withIntermediateDirectories: true)
        let arguments = ["create", dir.path + "/project.yaml", "-o", output]
        let whole = try Self.runWatching(arguments)
        try #require(whole.status == 0 && FileManager.default.fileExists(atPath: output) && whole.written > 1_000_000, "\(whole)")
        try FileManager.default.removeItem(atPath: output)
        for k in 1...20 {
            let at = whole.written * Int64(k) / 21
            let killed = try Self.kill(arguments, afterWriting: at)
            #expect(killed, "create finished before writing \(at) of \(whole.written) bytes (moment \(k))")
            #expect(!FileManager.default.fileExists(atPath: output), "a package under the final name after a kill at \(at) bytes")
        }
        let again = try MapbookBinary.run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(PackageValidator.validate(path: output).passes(strict: false))
        // What the killed runs left beside the output (their work files) is gone; the
        // archive writer's own temporary files (.<name>.tmp-*) are all that may remain.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").filter { $0.hasPrefix(".mapbook-") }
        #expect(left.isEmpty, "\(left)")
    }
}
