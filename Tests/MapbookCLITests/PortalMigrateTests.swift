import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// `mapbook portal migrate`: an embedded portal (SQLite and folders) moved to PostgreSQL and an
/// S3 bucket keeps its users, tokens, groups, sharing, items, files and thumbnails; a portal
/// started on the new stores answers as the old one did.
@Suite(.serialized) struct PortalMigrateTests {
    static let enabled = ConditionTrait.enabled(
        if: (FileManager.default.isExecutableFile(atPath: PostgresServer.initdb) && FileManager.default.isExecutableFile(atPath: S3Server.proxy)) || ExternalTools.isCI,
        "PostgreSQL 15 or OpenStack Swift is not installed; run tools/setup")

    func token(_ base: String, _ user: String, _ password: String) throws -> String {
        try #require(try Curl.json(["-d", "username=\(user)&password=\(password)&expiration=600&f=json", base + "/sharing/rest/generateToken"]).string("token"))
    }

    @Test(enabled)
    func aMigratedPortalAnswersAsTheOldOne() throws {
        try withTemporaryDirectory { dir in
            let old = try PortalServerProcess(users: [("alice", "alice-password-1", true), ("bob", "bob-password-1", false)])
            defer { old.removeData() }
            let api = "/sharing/rest"
            let alice = try token(old.url, "alice", "alice-password-1")
            // Two packages: one private, one shared with a group bob is in; a folder.
            let first = try TestPackages.makePackage(in: dir, name: "Private.mmpk")
            let second = try TestPackages.makePackage(in: dir, name: "Shared.mmpk", timestamp: 1_800_000_000)
            var ids: [String] = []
            for package in [first, second] {
                let added = try Curl.json(["-F", "f=json", "-F", "type=Mobile Map Package", "-F", "file=@\(package)", old.url + api + "/content/users/alice/addItem?token=" + alice])
                ids.append(try #require(added.string("id"), "\(added)"))
            }
            let group = try Curl.json(["-d", "title=Field crew&access=org&f=json&token=\(alice)", old.url + api + "/community/createGroup"])
            let groupId = try #require(group.object("group")?.string("id"), "\(group)")
            _ = try Curl.json(["-d", "users=bob&f=json&token=\(alice)", old.url + api + "/community/groups/\(groupId)/addUsers"])
            _ = try Curl.json(["-d", "groups=\(groupId)&f=json&token=\(alice)", old.url + api + "/content/users/alice/items/\(ids[1])/share"])
            _ = try Curl.json(["-d", "title=Maps&f=json&token=\(alice)", old.url + api + "/content/users/alice/createFolder"])
            // An editable package, and a device's edit synchronised to its copy.
            func device(_ home: String, _ arguments: [String], stdin: String? = nil) throws -> MapbookBinary.Result {
                let result = try MapbookBinary.run(arguments, environment: ["MAPBOOK_HOME": dir + "/" + home], stdin: stdin)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return result
            }
            let project = try EditableTrees.write(in: dir + "/project")
            _ = try device("a", ["create", project, "-o", dir + "/trees.mmpk"])
            _ = try device("a", ["portal", "signin", old.url, "--user", "alice", "--password-stdin", "--ca-cert", old.certificate], stdin: "alice-password-1\n")
            let published = try device("a", ["portal", "publish", dir + "/trees.mmpk", "--json"])
            let trees = try #require((try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [String: Any])?["itemId"] as? String)
            ids.append(trees)
            _ = try device("a", ["portal", "download", trees])
            _ = try device("a", ["edit", "update", dir + "/a/downloads/\(trees).mmpk", "--layer", "trees", "2", "--set", "condition=Dead"])
            _ = try device("a", ["sync", trees])
            let before = try ids.map { try Curl.text([old.url + api + "/content/items/\($0)?f=json&token=" + alice]) }
            old.stop()

            let store = try PostgresServer.database()
            let (bucket, s3) = try S3Server.bucket()
            let data = dir + "/new"
            let arguments = ["portal", "migrate", "--from", old.data, "--data", data, "--store", store, "--files", bucket, "--s3-endpoint", s3.endpoint]
            let migrated = try MapbookBinary.run(arguments)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(migrated.stdout.contains("migrated 2 users"), "\(migrated.stdout)")
            // The three published, and the Feature Service and Web Map items the editable one made.
            #expect(migrated.stdout.contains(" 5 items"), "\(migrated.stdout)")
            #expect(migrated.stdout.contains("1 sync copies"), "\(migrated.stdout)")
            // Again: a migration cut short is finished by running it once more.
            let again = try MapbookBinary.run(arguments)
            #expect(again.status == 0, "\(again.stderr)")

            let new = try PortalServerProcess(users: [], extraArguments: ["--files", bucket, "--s3-endpoint", s3.endpoint], store: store, data: data)
            defer {
                new.stop()
                new.removeData()
            }
            // alice's token from the old portal still works; bob signs in with his password.
            #expect(try Curl.json([new.url + api + "/community/self?f=json&token=" + alice]).string("username") == "alice")
            let bob = try token(new.url, "bob", "bob-password-1")
            // The items, as they were.
            let after = try ids.map { try Curl.text([new.url + api + "/content/items/\($0)?f=json&token=" + alice]) }
            #expect(after == before)
            // bob sees the shared one (through the group), not the private one, and gets its bytes.
            #expect(try Curl.json([new.url + api + "/content/items/\(ids[1])?f=json&token=" + bob]).string("id") == ids[1])
            #expect(try Curl.json([new.url + api + "/content/items/\(ids[0])?f=json&token=" + bob]).object("error") != nil)
            let download = dir + "/download.mmpk"
            _ = try Curl.text(["-o", download, new.url + api + "/content/items/\(ids[1])/data?token=" + bob])
            #expect(try readFile(download) == readFile(second))
            let folders = try Curl.json([new.url + api + "/content/users/alice?f=json&token=" + alice])
            #expect(folders["folders"]?.arrayValue?.contains { $0.objectValue?.string("title") == "Maps" } == true, "\(folders)")
            let thumbnail = try #require(try JSONParser.parse(Array(after[0].utf8)).objectValue?.string("thumbnail"))
            let image = dir + "/thumbnail"
            let headers = try Curl.text(["-D", "-", "-o", image, new.url + api + "/content/items/\(ids[0])/info/\(thumbnail)?token=" + alice])
            #expect(headers.contains(" 200"), "\(headers)")
            #expect(try readFile(image).starts(with: [0x89, 0x50, 0x4E, 0x47]) || (try readFile(image)).starts(with: [0xFF, 0xD8]))
            // The edit synchronised before the move reaches a device of the new portal: the copy,
            // its log and its generations came along.
            _ = try device("n", ["portal", "signin", new.url, "--user", "alice", "--password-stdin", "--ca-cert", new.certificate], stdin: "alice-password-1\n")
            _ = try device("n", ["portal", "download", trees])
            _ = try device("n", ["sync", trees])
            let copies = try FileManager.default.contentsOfDirectory(atPath: dir + "/n/edits")
            let received = try SQLiteDatabase(readOnlyPath: dir + "/n/edits/\(try #require(copies.first))/data.gpkg").scalar("SELECT condition FROM trees WHERE fid = 2")
            #expect(received == .text("Dead"))
        }
    }

    @Test func aFolderWithoutAPortalIsRefused() throws {
        try withTemporaryDirectory { dir in
            let result = try MapbookBinary.run([
                "portal", "migrate", "--from", dir, "--data", dir + "/new", "--store", "postgres://x@127.0.0.1:1/x", "--files", "s3://bucket", "--s3-endpoint", "http://127.0.0.1:1",
            ])
            #expect(result.status != 0)
            #expect(result.stderr.contains("holds no portal"), "\(result.stderr)")
        }
    }
}
