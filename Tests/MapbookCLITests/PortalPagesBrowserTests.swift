import Foundation
import MapbookTestSupport
import Testing

/// The portal's web pages in a real browser (issue 34): Debian's chromium driven by Playwright
/// against `mapbook portal serve`, once on SQLite and a data folder and once on PostgreSQL and
/// S3, as tools/web/portal_check.py (the pages), tools/web/portal_webmap_check.py (the map
/// viewer) and tools/web/portal_sketch_check.py (new lines and areas drawn in it) list check by
/// check.
@Suite(.serialized) struct PortalPagesBrowserTests {
    static let alice = "alice-password-1", bob = "bob-password-1"

    /// The Naperville sample, built once for both stores: a backdrop and feature layers for
    /// the item page's preview to draw.
    static let naperville: Result<String, any Error> = Result {
        let sample = try NapervilleSample.project()
        defer { sample.remove() }
        let folder = NSTemporaryDirectory() + "mapbook-portal-pages-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let package = folder + "/Naperville.mmpk"
        let built = try MapbookBinary.run(["create", sample.path + "/project.yaml", "-o", package, "--fixed-time", "2026-01-01"])
        guard built.status == 0 else { throw ExternalTools.ToolError(output: built.stderr) }
        return package
    }

    func check(_ server: PortalServerProcess) throws {
        try withTemporaryDirectory { dir in
            let package = try Self.naperville.get()
            let script = Fixtures.repositoryRoot.appendingPathComponent("tools/web/portal_check.py").path
            let (status, output) = try ExternalTools.run(ExternalTools.python, [script, server.url, package, dir + "/screens", Self.alice, Self.bob])
            let failed = output.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.contains("Error") }
            #expect(status == 0, "\(failed.joined(separator: "\n"))\n\(output.suffix(2000))")
            #expect(output.contains("all checks passed"))

            // The map viewer: a web map of the package online, read, searched and edited.
            let viewer = Fixtures.repositoryRoot.appendingPathComponent("tools/web/portal_webmap_check.py").path
            let (viewerStatus, viewerOutput) = try ExternalTools.run(ExternalTools.python, [viewer, server.url, package, dir + "/viewer", Self.alice, Self.bob])
            let viewerFailed = viewerOutput.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.contains("Error") }
            #expect(viewerStatus == 0 && viewerOutput.contains("all checks passed"), "\(viewerFailed.joined(separator: "\n"))\n\(viewerOutput.suffix(2000))")

            // New lines and areas drawn in the map viewer, on a small package of its own.
            let sketches = Fixtures.repositoryRoot.appendingPathComponent("tools/web/portal_sketch_check.py").path
            let (sketchStatus, sketchOutput) = try ExternalTools.run(ExternalTools.python, [sketches, server.url, MapbookBinary.path, dir + "/sketches", Self.alice])
            let sketchFailed = sketchOutput.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.contains("Error") }
            #expect(sketchStatus == 0 && sketchOutput.contains("all checks passed"), "\(sketchFailed.joined(separator: "\n"))\n\(sketchOutput.suffix(2000))")
        }
    }

    @Test(.enabled(if: ServeBrowserTests.hasBrowser || ExternalTools.isCI, "Debian's chromium or Playwright in .venv is missing (tools/setup installs both)"))
    func thePagesWorkOnSQLiteAndADataFolder() throws {
        let server = try PortalServerProcess(users: [("alice", Self.alice, true), ("bob", Self.bob, false)])
        defer {
            server.stop()
            server.removeData()
        }
        try check(server)
    }

    @Test(.enabled(if: (ServeBrowserTests.hasBrowser && FileManager.default.isExecutableFile(atPath: S3Server.proxy) && FileManager.default.isExecutableFile(atPath: PostgresServer.initdb)) || ExternalTools.isCI,
                   "chromium, Playwright, OpenStack Swift or PostgreSQL 15 is missing; run tools/setup"))
    func thePagesWorkOnPostgreSQLAndS3() throws {
        let (bucket, s3) = try S3Server.bucket()
        setenv("AWS_ACCESS_KEY_ID", S3Server.accessKey, 1)
        setenv("AWS_SECRET_ACCESS_KEY", S3Server.secretKey, 1)
        setenv("AWS_REGION", S3Server.region, 1)
        let server = try PortalServerProcess(
            users: [("alice", Self.alice, true), ("bob", Self.bob, false)], extraArguments: ["--files", bucket, "--s3-endpoint", s3.endpoint], store: try PostgresServer.database())
        defer {
            server.stop()
            server.removeData()
        }
        try check(server)
    }
}
