import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ExternalTools {
    /// Runs `argv` to its end with its output (stdout and stderr) in a file, not a pipe, and
    /// no signal blocked; returns the exit status (128 + the signal when killed) and the
    /// output. For programs that start servers (tmux, PostgreSQL): a server keeps every
    /// descriptor it inherits open, so a pipe's end would never come (its own output, and any
    /// pipe of another test's), and it would inherit the signals a test thread blocks, which
    /// its processes use to talk to each other.
    public static func runDetached(_ argv: [String]) throws -> (status: Int32, output: String) {
        let path = NSTemporaryDirectory() + "mapbook-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        // Nothing else the test process has open goes along: tests run in parallel, and a
        // pipe another test's child was started with would otherwise stay open in the server
        // for good, so that test would wait for its end for as long as the server runs.
        // (glibc's posix_spawn_file_actions_addclosefrom_np is not visible to Swift.)
        let closing = ["/usr/bin/python3", "-c", "import os, sys; os.closerange(3, 1 << 16); os.execv(sys.argv[1], sys.argv[1:])"]
        let cStrings = (closing + argv).map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, closing[0], &actions, &attributes, cStrings + [nil], environ) == 0 else {
            throw ToolError(output: "cannot start \(argv[0])")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exit, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }
}
