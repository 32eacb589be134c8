import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MapbookTestSupport
import Testing

/// `mapbook view` end to end, the real binary on a real terminal: in a tmux window, keys sent
/// with `send-keys`, the screen read with `capture-pane` until what is expected shows or a
/// deadline passes (tools/setup installs tmux). Each test has its own tmux server (`-L`),
/// killed at the end. The screens themselves are tested on a model of a terminal, in
/// MapbookTerminalTests; these check what only the binary does: taking the terminal over and
/// giving it back, signals, resizes, a terminal that goes away, refusals before the screen is
/// taken, and the library talking to a running portal.
@Suite(.serialized) struct ViewCommandTests {
    static let tmuxPath = "/usr/bin/tmux"
    static var tmuxRequired: ConditionTrait {
        .enabled(if: FileManager.default.isExecutableFile(atPath: tmuxPath) || ExternalTools.isCI, "tmux is not installed; run tools/setup")
    }

    /// A tmux server of its own, with one window running `command` in a shell.
    final class Window {
        let socket = "mapbook-test-\(UInt32.random(in: 0...UInt32.max))"

        init(_ command: String, columns: Int = 100, rows: Int = 30) throws {
            _ = try tmux(["new-session", "-d", "-s", "t", "-x", "\(columns)", "-y", "\(rows)", "TERM=xterm-256color bash --norc --noprofile"])
            _ = try tmux(["send-keys", "-t", "t", command, "Enter"])
        }

        deinit { _ = try? tmux(["kill-server"]) }

        /// Runs tmux and returns what it printed. Spawned and waited for by its process id,
        /// output to a file: the server `new-session` starts keeps every descriptor it is
        /// handed open, so neither a pipe's end nor Foundation's exit watch would come.
        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            let (status, text) = try ExternalTools.runDetached([ViewCommandTests.tmuxPath, "-L", socket] + arguments)
            guard status == 0 else { throw ExternalTools.ToolError(output: "tmux \(arguments): \(text)") }
            return text
        }

        func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "t"]) }

        /// The screen once `condition` holds, waiting up to `seconds`; the last screen otherwise.
        func wait(seconds: Double = 60, until condition: (String) -> Bool) throws -> String {
            var last = ""
            _ = try ViewCommandTests.poll(seconds: seconds) {
                last = try screen()
                return condition(last)
            }
            return last
        }

        func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", "t"] + keys) }
    }

    /// Whether `condition` came true within `seconds`, asked every tenth of a second.
    static func poll(seconds: Double, until condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try condition()
    }

    /// The status line after a redraw for a terminal `columns` wide: cut to that width with
    /// "…" (a line tmux only cropped to a narrower window has lost its "…").
    static func redrawn(_ screen: String, columns: Int) -> Bool {
        guard let status = screen.split(separator: "\n").last(where: { $0.contains("│ 1:") }) else { return false }
        return status.count == columns && status.hasSuffix("…") && !screen.contains("drawing")
    }

    /// What the shell printed after the viewer exited: its exit status, and whether `stty`
    /// found canonical input and echo on (lines the typed command itself cannot match).
    static func exit(_ screen: String) -> (status: Int, sane: Bool)? {
        let lines = screen.split(separator: "\n").map(String.init)
        // The last of each: the typed command, wrapped, may start a line with them too.
        guard let status = lines.last(where: { $0.hasPrefix("EXIT:") }).flatMap({ Int($0.dropFirst(5)) }),
            let stty = lines.last(where: { $0.hasPrefix("STTY:") })
        else { return nil }
        let words = stty.split(separator: " ")
        return (status, words.contains("icanon") && words.contains("echo"))
    }

    /// The scale the status line shows (the number after "1:").
    static func scale(_ screen: String) -> Double? {
        guard let range = screen.range(of: "│ 1:") else { return nil }
        let digits = screen[range.upperBound...].prefix { $0.isNumber || $0 == "," }
        return Double(digits.replacingOccurrences(of: ",", with: ""))
    }

    static func package(in dir: String) throws -> String {
        let project = try CommandTests().makeProject(in: dir)
        let created = try MapbookBinary.run(["create", project, "-o", dir + "/t.mmpk"])
        guard created.status == 0 else { throw ExternalTools.ToolError(output: created.stderr) }
        return dir + "/t.mmpk"
    }

    @Test func withoutATerminalItSaysSoAndExits64() throws {
        try withTemporaryDirectory { dir in
            let run = try MapbookBinary.run(["view", try Self.package(in: dir)], environment: ["MAPBOOK_HOME": dir + "/home"])
            #expect(run.status == 64, "\(run.status) \(run.stderr)")
            #expect(run.stderr.contains("needs a terminal"), "\(run.stderr)")
        }
    }

    /// Open, zoom in and out, pan, quit: the status line follows, and the shell gets its
    /// terminal back (canonical input and echo on, the main screen).
    @Test(tmuxRequired)
    func zoomPanAndQuitGiveTheTerminalBack() throws {
        try withTemporaryDirectory { dir in
            let package = try Self.package(in: dir)
            let window = try Window("MAPBOOK_HOME=\(dir)/home \(MapbookBinary.path) view \(package) --terminal-mode 256; echo EXIT:$?; echo STTY: $(stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)')")
            let first = try window.wait { Self.scale($0) != nil && !$0.contains("drawing") }
            let start = try #require(Self.scale(first), "no status line: \(first)")
            #expect(first.contains("Alpha"), "the map's name: \(first)")
            try window.keys("+")
            let zoomed = try window.wait { Self.scale($0).map { abs($0 - start / 2) < 1 } ?? false }
            #expect(Self.scale(zoomed).map { abs($0 - start / 2) < 1 } == true, "after +: \(zoomed)")
            try window.keys("-", "-")
            let out = try window.wait { Self.scale($0).map { abs($0 - start * 2) < 1 } ?? false }
            #expect(Self.scale(out).map { abs($0 - start * 2) < 1 } == true, "after - -: \(out)")
            let before = out.split(separator: "\n").last { $0.contains("│ 1:") }.map(String.init) ?? ""
            try window.keys("Left")
            let panned = try window.wait { screen in !screen.contains("drawing") && (screen.split(separator: "\n").last { $0.contains("│ 1:") }.map(String.init) ?? before) != before }
            #expect(panned.split(separator: "\n").last { $0.contains("│ 1:") }.map(String.init) != before, "the centre did not move: \(panned)")
            try window.keys("q")
            let after = try window.wait { Self.exit($0) != nil }
            #expect(Self.exit(after)?.status == 0, "\(after)")
            #expect(Self.exit(after)?.sane == true, "the terminal was not restored: \(after)")
            #expect(try window.tmux(["display", "-p", "-t", "t", "#{alternate_on}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }

    /// Resized, the map is drawn again at the new size; too small, it says so and waits;
    /// killed with SIGTERM, the terminal is given back.
    @Test(tmuxRequired)
    func resizesAndSIGTERMAreHandled() throws {
        try withTemporaryDirectory { dir in
            let package = try Self.package(in: dir)
            let window = try Window("MAPBOOK_HOME=\(dir)/home \(MapbookBinary.path) view \(package) --terminal-mode 256; echo EXIT:$?; echo STTY: $(stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)')")
            _ = try window.wait { Self.scale($0) != nil && !$0.contains("drawing") }
            // tmux crops the old frame to the new size at once: the redraw is told by its
            // status line, cut to the new width with "…".
            try window.tmux(["resize-window", "-t", "t", "-x", "70", "-y", "20"])
            let resized = try window.wait { Self.redrawn($0, columns: 70) }
            #expect(Self.redrawn(resized, columns: 70), "no status line after the resize: \(resized)")
            try window.tmux(["resize-window", "-t", "t", "-x", "15", "-y", "4"])
            let small = try window.wait { $0.contains("Too") }
            #expect(small.contains("Too"), "\(small)")
            try window.tmux(["resize-window", "-t", "t", "-x", "90", "-y", "25"])
            let back = try window.wait { Self.redrawn($0, columns: 90) }
            #expect(Self.redrawn(back, columns: 90), "\(back)")
            // The viewer's process: the only one whose command line names the package.
            let (_, found) = try ExternalTools.run("/usr/bin/pgrep", ["-f", "view \(package)"])
            let pid = try #require(found.split(separator: "\n").first.map(String.init), "no mapbook process")
            _ = try ExternalTools.run("/usr/bin/kill", ["-TERM", pid])
            let after = try window.wait { Self.exit($0) != nil }
            #expect(Self.exit(after)?.status == 143, "\(after)")
            #expect(Self.exit(after)?.sane == true, "the terminal was not restored: \(after)")
            #expect(try window.tmux(["display", "-p", "-t", "t", "#{alternate_on}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }

    /// A viewer whose terminal goes away (its window closed) stops rather than spinning.
    @Test(tmuxRequired)
    func closingTheWindowEndsTheViewer() throws {
        try withTemporaryDirectory { dir in
            let package = try Self.package(in: dir)
            var window: Window? = try Window("MAPBOOK_HOME=\(dir)/home \(MapbookBinary.path) view \(package) --terminal-mode 256")
            _ = try window?.wait { Self.scale($0) != nil && !$0.contains("drawing") }
            window = nil
            let stopped = try Self.poll(seconds: 20) { try ExternalTools.run("/usr/bin/pgrep", ["-f", "view \(package)"]).status != 0 }
            #expect(stopped, "the viewer still runs with its terminal gone")
            _ = try? ExternalTools.run("/usr/bin/pkill", ["-f", "view \(package)"])
        }
    }
}
