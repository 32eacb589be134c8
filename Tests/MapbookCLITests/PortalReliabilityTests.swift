import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// A portal killed (SIGKILL) in the middle of uploads comes back without half items, and with
/// every committed item whole (issue 17, item 5).
@Suite(.serialized) struct PortalReliabilityTests {
    static let curl = "/usr/bin/curl"

    /// Runs curl against the self-signed server; returns its output.
    @discardableResult
    static func curl(_ arguments: [String]) throws -> String {
        try ExternalTools.run(curl, ["-sk", "--max-time", "60"] + arguments).output
    }

    static func json(_ text: String) throws -> JSONObject {
        try #require(try JSONParser.parse(text).objectValue, "not JSON: \(text)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: curl) || ExternalTools.isCI, "curl is not installed (tools/setup installs it)"))
    func aServerKilledMidUploadLeavesNoHalfItem() throws {
        let work = NSTemporaryDirectory() + "mapbook-portal-kill-\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let package = try TestPackages.makePackage(in: work, name: "Whole.mmpk")
        // A large file, so the server dies while it is still arriving.
        let big = work + "/Big.bin"
        FileManager.default.createFile(atPath: big, contents: Data((0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }))

        var server = try PortalServerProcess(users: [("alice", "alice-secret-1", false)])
        defer {
            server.stop()
            server.removeData()
        }
        var token = try #require(try Self.json(try Self.curl(["-X", "POST", "\(server.url)/sharing/rest/generateToken", "-d", "username=alice&password=alice-secret-1&f=json"]))["token"]?.stringValue)
        var auth = ["-H", "X-Esri-Authorization: Bearer \(token)"]
        var base = "\(server.url)/sharing/rest/content/users/alice"

        // One item committed whole before the crash.
        let whole = try Self.json(try Self.curl(auth + ["-F", "f=json", "-F", "type=Mobile Map Package", "-F", "file=@\(package)", "\(base)/addItem"]))
        let wholeId = try #require(whole["id"]?.stringValue, "\(whole)")
        // One multipart upload with its first part in, never committed.
        let started = try Self.json(try Self.curl(auth + ["-d", "f=json&type=Mobile Map Package&multipart=true&fileName=Parts.mmpk", "\(base)/addItem"]))
        let partsId = try #require(started["id"]?.stringValue)
        let part = try Self.json(try Self.curl(auth + ["-F", "file=@\(package)", "\(base)/items/\(partsId)/addPart?f=json&partNum=1"]))
        #expect(part["success"]?.boolValue == true)
        // Single-request uploads still streaming when the server dies: it is killed at 20
        // moments of one, chosen by the bytes it has written (its staging file) since the
        // upload began, and restarted each time.
        for k in 1...20 {
            let before = try #require(CrashSafetyTests.written(server.pid))
            let upload = Process()
            upload.executableURL = URL(fileURLWithPath: Self.curl)
            upload.arguments = ["-sk", "--max-time", "60"] + auth + ["-F", "f=json", "-F", "type=Code Sample", "-F", "file=@\(big)", "\(base)/addItem"]
            upload.standardOutput = FileHandle.nullDevice
            upload.standardError = FileHandle.nullDevice
            try upload.run()
            let at = before + Int64(6 << 20) * Int64(k) / 21
            var reached = false
            while upload.isRunning, let n = CrashSafetyTests.written(server.pid) {
                if n >= at {
                    reached = true
                    break
                }
                usleep(100)
            }
            server.kill()
            upload.waitUntilExit()
            #expect(reached && upload.terminationStatus != 0, "moment \(k): the upload ended before the server had written \(at - before) bytes of it")
            server = try server.restart()
            token = try #require(try Self.json(try Self.curl(["-X", "POST", "\(server.url)/sharing/rest/generateToken", "-d", "username=alice&password=alice-secret-1&f=json"]))["token"]?.stringValue)
            auth = ["-H", "X-Esri-Authorization: Bearer \(token)"]
            base = "\(server.url)/sharing/rest/content/users/alice"
        }
        server.kill()

        server = try server.restart()
        let token2 = try #require(try Self.json(try Self.curl(["-X", "POST", "\(server.url)/sharing/rest/generateToken", "-d", "username=alice&password=alice-secret-1&f=json"]))["token"]?.stringValue)
        let auth2 = ["-H", "X-Esri-Authorization: Bearer \(token2)"]
        let listing = try Self.json(try Self.curl(auth2 + ["\(server.url)/sharing/rest/content/users/alice?f=json"]))
        let ids = (listing["items"]?.arrayValue ?? []).compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(ids == [wholeId], "only the committed item is there: \(ids)")
        let half = try Self.json(try Self.curl(auth2 + ["\(server.url)/sharing/rest/content/items/\(partsId)?f=json"]))
        #expect(half["error"]?.objectValue?["messageCode"]?.stringValue == "CONT_0001")
        let search = try Self.json(try Self.curl(auth2 + ["\(server.url)/sharing/rest/search?f=json&q=owner:alice"]))
        #expect(search["total"]?.intValue == 1)
        // The committed item is whole; nothing is left in the upload folders.
        let downloaded = work + "/downloaded.mmpk"
        try Self.curl(auth2 + ["-o", downloaded, "\(server.url)/sharing/rest/content/items/\(wholeId)/data"])
        #expect(FileManager.default.contents(atPath: downloaded) == FileManager.default.contents(atPath: package))
        for folder in ["staging", "uploads"] {
            let left = (try? FileManager.default.contentsOfDirectory(atPath: server.data + "/" + folder)) ?? []
            #expect(left.isEmpty, "\(folder) still holds \(left)")
        }
    }
}
