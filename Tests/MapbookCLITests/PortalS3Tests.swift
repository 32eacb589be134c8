import Foundation
import MapbookTestSupport
import Testing

/// The portal on an S3 bucket as a process (issue 20): while the object store is down, an
/// upload's commit and a download get a clear 503 portal error and the upload's parts stay;
/// once it is back, the same commit succeeds, with no portal restarted.
@Suite struct PortalS3Tests {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("tools/s3/swift-s3.sh").path

    @Test(.enabled(if: (FileManager.default.isExecutableFile(atPath: S3Server.proxy) && FileManager.default.isExecutableFile(atPath: PostgresServer.initdb)) || ExternalTools.isCI,
                   "OpenStack Swift or PostgreSQL 15 is not installed; run tools/setup"))
    func anObjectStoreOutageGives503sAndKeepsTheUpload() throws {
        try withTemporaryDirectory { dir in
            // An S3 server of its own: the shared one serves other tests while this one stops.
            let folder = NSTemporaryDirectory() + "mapbook-s3-outage-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let started = try ExternalTools.runDetached([Self.script, "start", folder])
            try #require(started.status == 0, "\(started.output)")
            defer {
                _ = try? ExternalTools.runDetached([Self.script, "stop", folder])
                try? FileManager.default.removeItem(atPath: folder)
            }
            let endpoint = try #require(started.output.split(separator: "\n").last.map(String.init))
            setenv("AWS_ACCESS_KEY_ID", S3Server.accessKey, 1)
            setenv("AWS_SECRET_ACCESS_KEY", S3Server.secretKey, 1)
            setenv("AWS_REGION", S3Server.region, 1)
            let server = try PortalServerProcess(
                users: [("alice", "alice-password-1", true)], extraArguments: ["--files", "s3://outage", "--s3-endpoint", endpoint], store: try PostgresServer.database())
            defer {
                server.stop()
                server.removeData()
            }
            let api = server.url + "/sharing/rest"
            let token = try #require(try Curl.json(["-d", "username=alice&password=alice-password-1&expiration=60&f=json", api + "/generateToken"]).string("token"))
            let package = try TestPackages.makePackage(in: dir, name: "Outage.mmpk")
            let bytes = try readFile(package)
            let added = try Curl.json(["-F", "f=json", "-F", "multipart=true", "-F", "fileName=Outage.mmpk", "-F", "type=Mobile Map Package", api + "/content/users/alice/addItem?token=" + token])
            let id = try #require(added.string("id"), "\(added)")
            let half = bytes.count / 2
            for (n, slice) in [(1, bytes[..<half]), (2, bytes[half...])] {
                let part = dir + "/part\(n)"
                try Data(slice).write(to: URL(fileURLWithPath: part))
                let answer = try Curl.json(["-F", "f=json", "-F", "partNum=\(n)", "-F", "file=@\(part)", api + "/content/users/alice/items/\(id)/addPart?token=" + token])
                #expect(answer["success"]?.boolValue == true, "\(answer)")
            }

            let stopped = try ExternalTools.runDetached([Self.script, "stop", folder])
            #expect(stopped.status == 0, "\(stopped.output)")
            let commit = ["-F", "f=json", api + "/content/users/alice/items/\(id)/commit?token=" + token]
            let down = try Curl.json(commit)
            #expect(down.object("error")?["code"]?.intValue == 503, "\(down)")
            #expect(down.object("error")?.string("message")?.contains("file store") == true, "\(down)")

            let resumed = try ExternalTools.runDetached([Self.script, "resume", folder])
            try #require(resumed.status == 0, "\(resumed.output)")
            // The same commit, retried: the parts were kept.
            let back = try Curl.json(commit)
            #expect(back["success"]?.boolValue == true, "\(back)")
            let download = dir + "/download.mmpk"
            try Curl.text(["-o", download, api + "/content/items/\(id)/data?token=" + token])
            #expect(try readFile(download) == bytes)
        }
    }
}
