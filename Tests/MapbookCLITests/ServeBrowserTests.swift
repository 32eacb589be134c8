import Foundation
import MapbookTestSupport
import Testing

/// `mapbook serve` in a real browser: Debian's chromium driven by Playwright from .venv (both
/// installed by tools/setup), on the Naperville sample, as tools/web/serve_check.py lists
/// check by check: pages and links, security headers and HEAD, the map drawn (pixels), the
/// same view as `mapbook render`, the table of contents kept for `mapbook toc`, search with
/// suggestions, pop-ups on a tap, directions from the browser's location, nothing fetched
/// from another host, the service worker's offline shell, the secret on a network address.
@Suite(.serialized) struct ServeBrowserTests {
    static let hasBrowser: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            FileManager.default.isExecutableFile(atPath: ExternalTools.python)
        else { return false }
        return (try? ExternalTools.run(ExternalTools.python, ["-c", "import playwright.sync_api, PIL, zxingcpp"]))?.status == 0
    }()

    @Test(.enabled(if: hasBrowser || ExternalTools.isCI, "Debian's chromium or Playwright in .venv is missing (tools/setup installs both)"))
    func theMapbookWorksInABrowserAtPhoneAndDesktopSizes() throws {
        let work = NSTemporaryDirectory() + "mapbook-serve-browser-\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let script = Fixtures.repositoryRoot.appendingPathComponent("tools/web/serve_check.py").path
        let (status, output) = try ExternalTools.run(ExternalTools.python, [script, MapbookBinary.path, work])
        let failed = output.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.contains("Error") }
        #expect(status == 0, "\(failed.joined(separator: "\n"))\n\(output.suffix(2000))")
        #expect(output.contains("all checks passed"))
    }
}
