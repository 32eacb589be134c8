import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// The portal on PostgreSQL as a process (issue 20): while its database is stopped, requests
/// get a clear 503 portal error; once it is back they succeed again, with no portal restarted.
@Suite struct PortalPostgresTests {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("tools/pg/postgres.sh").path

    @Test(PostgresServer.required)
    func aDatabaseRestartGives503sThenRecoversByItself() throws {
        try withTemporaryDirectory { dir in
            // A PostgreSQL of its own: the shared one serves other tests while this one stops.
            // Beside, not inside, the test's folder: the server runs as `postgres` when the tests
            // run as root, and the test folder is private.
            let folder = NSTemporaryDirectory() + "mapbook-pg-restart-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let started = try ExternalTools.runDetached([Self.script, "start", folder])
            try #require(started.status == 0, "\(started.output)")
            defer {
                _ = try? ExternalTools.runDetached([Self.script, "stop", folder])
                try? FileManager.default.removeItem(atPath: folder)
            }
            let url = try #require(started.output.split(separator: "\n").last.map(String.init))
            let server = try PortalServerProcess(users: [("alice", "alice-password-1", true)], store: url)
            defer {
                server.stop()
                server.removeData()
            }
            let token = try #require(try Curl.json(["-d", "username=alice&password=alice-password-1&expiration=60&f=json", server.url + "/sharing/rest/generateToken"]).string("token"))
            let me = server.url + "/sharing/rest/community/self?f=json&token=" + token
            #expect(try Curl.json([me]).string("username") == "alice")

            let stopped = try ExternalTools.runDetached([Self.script, "stop", folder])
            #expect(stopped.status == 0, "\(stopped.output)")
            let down = try Curl.json([me])
            #expect(down.object("error")?["code"]?.intValue == 503, "\(down)")
            #expect(down.object("error")?.string("message")?.contains("database") == true, "\(down)")

            let resumed = try ExternalTools.runDetached([Self.script, "resume", folder])
            try #require(resumed.status == 0, "\(resumed.output)")
            // The pool reconnects by itself: the same portal process answers again.
            var back: JSONObject = [:]
            for _ in 0..<60 {
                back = try Curl.json([me])
                if back.string("username") == "alice" { break }
                Thread.sleep(forTimeInterval: 0.5)
            }
            #expect(back.string("username") == "alice", "\(back)")
        }
    }
}
