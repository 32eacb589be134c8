import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

/// End-to-end: the portal client commands (`mapbook portal signin|search|download|check|
/// update|publish|signout`) of the built binary against `mapbook portal serve --self-signed`,
/// each test with its own portal and its own device library (MAPBOOK_HOME).
@Suite(.serialized) struct PortalClientTests {
    static let alice = (name: "alice", password: "alice-secret-1")
    static let bob = (name: "bob", password: "bob-secret-22")

    /// A portal with alice (admin) and bob, a work folder and a library folder; both removed after.
    func withPortal<T>(_ body: (PortalServerProcess, String) throws -> T) throws -> T {
        try withTemporaryDirectory { dir in
            let server = try PortalServerProcess(users: [(Self.alice.name, Self.alice.password, true), (Self.bob.name, Self.bob.password, false)])
            defer {
                server.stop()
                server.removeData()
            }
            return try body(server, dir)
        }
    }

    func mapbook(_ arguments: [String], home: String, stdin: String? = nil) throws -> MapbookBinary.Result {
        try MapbookBinary.run(arguments, environment: ["MAPBOOK_HOME": home], stdin: stdin)
    }

    /// Signs `user` in with the server's certificate; the result must be a success.
    @discardableResult
    func signIn(_ server: PortalServerProcess, home: String, user: (name: String, password: String) = alice) throws -> MapbookBinary.Result {
        let result = try mapbook(
            ["portal", "signin", server.url, "--user", user.name, "--password-stdin", "--ca-cert", server.certificate], home: home, stdin: user.password + "\n")
        #expect(result.status == 0, "signin: \(result.stderr)")
        return result
    }

    /// Publishes `package` and returns its `--json` answer.
    func publish(_ package: String, home: String, _ extra: [String] = []) throws -> [String: Any] {
        let result = try mapbook(["portal", "publish", package, "--json"] + extra, home: home)
        #expect(result.status == 0, "publish: \(result.stderr)")
        return try jsonObject(result.stdout)
    }

    func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    func jsonArray(_ text: String) throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a JSON array: \(text)")
    }

    func sha256(_ path: String) throws -> String {
        SHA256Digest.hex(of: try readFile(path))
    }

    func credential(_ home: String) throws -> [String: Any] {
        try jsonObject(String(decoding: try readFile(home + "/credential.json"), as: UTF8.self))
    }

    func writeCredential(_ home: String, _ object: [String: Any]) throws {
        // The test edits the file in place: its mode must stay what the library made it.
        let data = try JSONSerialization.data(withJSONObject: object)
        let handle = try #require(FileHandle(forWritingAtPath: home + "/credential.json"))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: data)
        try handle.close()
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    // MARK: - Signing in and out

    @Test func signInWithTheServersCertificateKeepsTheTokensOnlyInA0600File() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            let result = try signIn(server, home: home)
            #expect(result.stdout.contains("Signed in to \(server.url) as alice (OAuth"), "\(result.stdout)")

            let text = String(decoding: try readFile(home + "/credential.json"), as: UTF8.self)
            #expect(!text.contains(Self.alice.password), "the password must never be stored")
            #expect(try mode(home + "/credential.json") == 0o600)
            let stored = try credential(home)
            #expect(stored["username"] as? String == "alice")
            #expect(stored["portalUrl"] as? String == server.url)
            #expect((stored["token"] as? String)?.isEmpty == false)
            #expect((stored["refreshToken"] as? String)?.isEmpty == false, "the code flow gives a refresh token")
            #expect(stored["clientId"] as? String == "mapbook")
            let mode = try mapbook(["library", "mode"], home: home)
            #expect(mode.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "portal \(server.url)")

            // The certificate is kept: later commands trust the portal without --ca-cert.
            let search = try mapbook(["portal", "search", "--json"], home: home)
            #expect(search.status == 0, "\(search.stderr)")
            #expect(try jsonArray(search.stdout).isEmpty)
        }
    }

    @Test func signInWithInsecureSaysSoAndWithoutTrustFailsNamingTheFix() throws {
        try withPortal { server, dir in
            let untrusted = try mapbook(["portal", "signin", server.url, "--user", "alice", "--password-stdin"], home: dir + "/a", stdin: Self.alice.password + "\n")
            #expect(untrusted.status != 0)
            #expect(untrusted.stderr.contains("cannot reach \(server.url)") && untrusted.stderr.contains("--ca-cert"), "\(untrusted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/a/credential.json"))

            let home = dir + "/b"
            let insecure = try mapbook(["portal", "signin", server.url, "--user", "alice", "--password-stdin", "--insecure"], home: home, stdin: Self.alice.password + "\n")
            #expect(insecure.status == 0, "\(insecure.stderr)")
            #expect(insecure.stderr.contains("WARNING: --insecure") && insecure.stderr.contains("NOT verified"))
            #expect(FileManager.default.fileExists(atPath: home + "/credential.json"))
            #expect(!FileManager.default.fileExists(atPath: home + "/portal-ca.pem"), "--insecure is never remembered")

            // Nothing is remembered from --insecure: the next command must say it again.
            let search = try mapbook(["portal", "search"], home: home)
            #expect(search.status == 3, "\(search.stderr)")
            let again = try mapbook(["portal", "search", "--insecure"], home: home)
            #expect(again.status == 0, "\(again.stderr)")
        }
    }

    @Test func aWrongPasswordIsRefusedClearlyAndNothingIsSaved() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            let result = try mapbook(
                ["portal", "signin", server.url, "--user", "alice", "--password-stdin", "--ca-cert", server.certificate], home: home, stdin: "not-her-password\n")
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot sign in to \(server.url) as alice: Invalid username or password"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: home + "/credential.json"))
            #expect(!FileManager.default.fileExists(atPath: home + "/library.json"), "a failed sign-in must not switch modes")
        }
    }

    @Test func signOutRevokesTheTokensAndRemovesDownloadsAndCredential() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let token = try #require(try credential(home)["token"] as? String)
            let id = try #require(try publish(try TestPackages.makePackage(in: dir), home: home)["itemId"] as? String)
            let download = try mapbook(["portal", "download", id], home: home)
            #expect(download.status == 0, "\(download.stderr)")

            let out = try mapbook(["portal", "signout"], home: home)
            #expect(out.status == 0, "\(out.stderr)")
            #expect(out.stdout.contains("Signed out alice of \(server.url) (tokens revoked)."), "\(out.stdout)")
            #expect(out.stdout.contains("Removed 1 downloaded package: 'Sample Package'"))
            #expect(!FileManager.default.fileExists(atPath: home + "/credential.json"))
            #expect(!FileManager.default.fileExists(atPath: home + "/downloads/\(id).mmpk"))
            #expect(!FileManager.default.fileExists(atPath: home + "/downloads/\(id).json"))
            #expect(try mapbook(["library", "mode"], home: home).stdout.hasPrefix("portal"), "signing out stays in portal mode")

            // The revoked token no longer opens anything, even if a copy was kept.
            try signIn(server, home: dir + "/other")
            var copy = try credential(dir + "/other")
            copy["token"] = token
            copy["refreshToken"] = NSNull()
            try writeCredential(dir + "/other", copy)
            let stale = try mapbook(["portal", "search"], home: dir + "/other")
            #expect(stale.status == 1)
            #expect(stale.stderr.contains("sign in again"), "\(stale.stderr)")
        }
    }

    @Test func aGarbageTokenSaysToSignInAgain() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            var stored = try credential(home)
            stored["token"] = "garbage"
            stored["refreshToken"] = "more-garbage"
            try writeCredential(home, stored)
            let result = try mapbook(["portal", "search"], home: home)
            #expect(result.status == 1)
            #expect(result.stderr.contains("sign in again: `mapbook portal signin \(server.url) --user alice`"), "\(result.stderr)")
        }
    }

    @Test func generateTokenSignsInWithoutRefreshAndAnExpiredTokenThenAsksForANewSignIn() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            let result = try mapbook(
                ["portal", "signin", server.url, "--user", "ALICE", "--password-stdin", "--ca-cert", server.certificate, "--generate-token"], home: home,
                stdin: Self.alice.password + "\n")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("as alice (generateToken;"), "the portal's spelling of the name is kept: \(result.stdout)")
            var stored = try credential(home)
            #expect(stored["refreshToken"] is NSNull)
            #expect(stored["referer"] as? String == server.url)
            #expect(try mapbook(["portal", "search"], home: home).status == 0)

            stored["expires"] = 1_000_000
            try writeCredential(home, stored)
            let expired = try mapbook(["portal", "search"], home: home)
            #expect(expired.status == 1)
            #expect(expired.stderr.contains("the saved access token has expired; sign in again"), "\(expired.stderr)")
        }
    }

    @Test func anExpiredAccessTokenIsRefreshedAndSaved() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            var stored = try credential(home)
            let old = try #require(stored["token"] as? String)
            stored["expires"] = 1_000_000
            try writeCredential(home, stored)

            let result = try mapbook(["portal", "search", "--json"], home: home)
            #expect(result.status == 0, "\(result.stderr)")
            let renewed = try credential(home)
            #expect(renewed["token"] as? String != old, "the access token must be renewed")
            #expect((renewed["expires"] as? NSNumber)?.int64Value ?? 0 > Int64(Date().timeIntervalSince1970 * 1000))
            #expect(try mode(home + "/credential.json") == 0o600)
        }
    }

    // MARK: - Publishing and searching

    @Test func publishingTheSamePackageAgainUpdatesTheItem() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let first = try publish(try TestPackages.makePackage(in: dir, name: "Water.mmpk"), home: home)
            #expect(first["action"] as? String == "added")
            #expect(first["title"] as? String == "Sample Package", "the portal takes the title from the package")
            let id = try #require(first["itemId"] as? String)

            // Another build of the same package (same GUID), under another file name.
            let second = try publish(try TestPackages.makePackage(in: dir, name: "Water v2.mmpk", timestamp: 1_800_000_000), home: home, ["--share", "org"])
            #expect(second["action"] as? String == "updated")
            #expect(second["itemId"] as? String == id)
            #expect(second["access"] as? String == "org")
            let before = try #require((first["modified"] as? NSNumber)?.int64Value)
            let after = try #require((second["modified"] as? NSNumber)?.int64Value)
            #expect(after > before)

            let all = try jsonArray(try mapbook(["portal", "search", "--json"], home: home).stdout)
            #expect(all.count == 1, "an update must not add a second item")
        }
    }

    @Test func publishingInPartsAddsAndUpdatesWholeFiles() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let v1 = try TestPackages.makePackage(in: dir, name: "Parts.mmpk")
            let first = try publish(v1, home: home, ["--part-size", "20000", "--title", "In Parts", "--folder", "Field"])
            #expect(first["action"] as? String == "added")
            #expect(first["title"] as? String == "In Parts")
            let id = try #require(first["itemId"] as? String)
            let size = try readFile(v1).count
            #expect(size > 40000, "the package must need several parts")
            #expect((first["size"] as? NSNumber)?.intValue == size)

            let v2 = try TestPackages.makePackage(in: dir, name: "Parts v2.mmpk", timestamp: 1_800_000_000)
            let second = try publish(v2, home: home, ["--part-size", "20000"])
            #expect(second["action"] as? String == "updated" && second["itemId"] as? String == id)

            let download = try mapbook(["portal", "download", id, "--json"], home: home)
            #expect(download.status == 0, "\(download.stderr)")
            #expect(try jsonObject(download.stdout)["sha256"] as? String == (try sha256(v2)), "the parts must join into the new version")
        }
    }

    @Test func publishingAnInvalidPackageIsRefusedBeforeUploading() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let bad = try BadPackage.pathToNowhere.make(in: dir)
            let result = try mapbook(["portal", "publish", bad], home: home)
            #expect(result.status == 1)
            #expect(result.stderr.contains("nowhere.gpkg") && result.stderr.contains("is not a valid package"), "\(result.stderr)")
            #expect(try jsonArray(try mapbook(["portal", "search", "--json", "--type", "any"], home: home).stdout).isEmpty)
        }
    }

    @Test func searchListsPublishedPackagesAsATableAndAsJSON() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let id = try #require(try publish(try TestPackages.makePackage(in: dir), home: home, ["--title", "Naperville Water"])["itemId"] as? String)

            let table = try mapbook(["portal", "search", "Naperville"], home: home)
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("TITLE") == true)
            #expect(lines.contains { $0.contains("Naperville Water") && $0.contains("alice") && $0.contains(id) }, "\(table.stdout)")
            #expect(table.stdout.contains("1 item"))

            let json = try jsonArray(try mapbook(["portal", "search", "water", "--owner", "alice", "--json"], home: home).stdout)
            #expect(json.map { $0["id"] as? String } == [id])
            #expect(json.first?["type"] as? String == "Mobile Map Package")

            let none = try mapbook(["portal", "search", "Portland", "--json"], home: home)
            #expect(try jsonArray(none.stdout).isEmpty)
            let otherOwner = try mapbook(["portal", "search", "--owner", "bob", "--json"], home: home)
            #expect(try jsonArray(otherOwner.stdout).isEmpty)
        }
    }

    // MARK: - Downloading

    @Test func downloadVerifiesTheHashAndWritesTheRecord() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let package = try TestPackages.makePackage(in: dir)
            let published = try publish(package, home: home)
            let id = try #require(published["itemId"] as? String)

            let result = try mapbook(["portal", "download", id], home: home)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Downloaded 'Sample Package'"))
            #expect(result.stderr.isEmpty, "no progress bar when stderr is not a terminal: \(result.stderr)")
            #expect(try sha256(home + "/downloads/\(id).mmpk") == (try sha256(package)))

            let record = try jsonObject(String(decoding: try readFile(home + "/downloads/\(id).json"), as: UTF8.self))
            #expect(record["portalUrl"] as? String == server.url)
            #expect(record["itemId"] as? String == id)
            #expect(record["sha256"] as? String == (try sha256(package)))
            #expect((record["size"] as? NSNumber)?.intValue == (try readFile(package)).count)
            #expect((record["itemModifiedAtDownload"] as? NSNumber)?.int64Value == (published["modified"] as? NSNumber)?.int64Value)
            #expect(record["etag"] as? String == "\"\(try sha256(package))\"")
            #expect(!FileManager.default.fileExists(atPath: home + "/downloads/\(id).partial"))
            #expect(!FileManager.default.fileExists(atPath: home + "/downloads/\(id).etag"))

            let list = try mapbook(["library", "list"], home: home)
            #expect(list.status == 0 && list.stdout.contains("Sample Package") && list.stdout.contains(id), "\(list.stdout)\(list.stderr)")
        }
    }

    @Test func anInterruptedDownloadResumesWhereItStopped() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let package = try TestPackages.makePackage(in: dir)
            let id = try #require(try publish(package, home: home)["itemId"] as? String)
            let bytes = try readFile(package)
            let half = bytes.count / 2
            try FileManager.default.createDirectory(atPath: home + "/downloads", withIntermediateDirectories: true)
            try writeFile(home + "/downloads/\(id).partial", Array(bytes.prefix(half)))

            let result = try mapbook(["portal", "download", id, "--json"], home: home)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("resuming the download of 'Sample Package' at"), "\(result.stderr)")
            let record = try jsonObject(result.stdout)
            #expect((record["resumedFrom"] as? NSNumber)?.intValue == half, "only the missing half is asked for")
            #expect(record["sha256"] as? String == SHA256Digest.hex(of: bytes))
            #expect(try readFile(home + "/downloads/\(id).mmpk") == bytes)
        }
    }

    @Test func aPartialWithWrongBytesEndsInAHashErrorThenACleanRetry() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let package = try TestPackages.makePackage(in: dir)
            let id = try #require(try publish(package, home: home)["itemId"] as? String)
            let bytes = try readFile(package)
            try FileManager.default.createDirectory(atPath: home + "/downloads", withIntermediateDirectories: true)
            try writeFile(home + "/downloads/\(id).partial", [UInt8](repeating: 0x55, count: bytes.count / 2))

            let damaged = try mapbook(["portal", "download", id], home: home)
            #expect(damaged.status == 1)
            #expect(damaged.stderr.contains("SHA-256") && damaged.stderr.contains("damaged and was deleted"), "\(damaged.stderr)")
            #expect(!FileManager.default.fileExists(atPath: home + "/downloads/\(id).partial"))
            #expect(!FileManager.default.fileExists(atPath: home + "/downloads/\(id).mmpk"))

            let retry = try mapbook(["portal", "download", id, "--json"], home: home)
            #expect(retry.status == 0, "\(retry.stderr)")
            #expect((try jsonObject(retry.stdout)["resumedFrom"] as? NSNumber)?.intValue == 0)
            #expect(try readFile(home + "/downloads/\(id).mmpk") == bytes)
        }
    }

    @Test func anotherUserCannotDownloadAPrivateItem() throws {
        try withPortal { server, dir in
            let aliceHome = dir + "/alice"
            try signIn(server, home: aliceHome)
            let id = try #require(try publish(try TestPackages.makePackage(in: dir), home: aliceHome)["itemId"] as? String)

            let bobHome = dir + "/bob"
            try signIn(server, home: bobHome, user: Self.bob)
            #expect(try jsonArray(try mapbook(["portal", "search", "--json"], home: bobHome).stdout).isEmpty)
            let result = try mapbook(["portal", "download", id], home: bobHome)
            #expect(result.status == 1)
            #expect(result.stderr.contains("Item does not exist or is inaccessible"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: bobHome + "/downloads/\(id).mmpk"))
        }
    }

    // MARK: - Updates

    @Test func checkFindsANewVersionAndUpdateFetchesIt() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let id = try #require(try publish(try TestPackages.makePackage(in: dir, name: "v1.mmpk"), home: home)["itemId"] as? String)
            #expect(try mapbook(["portal", "download", id], home: home).status == 0)

            let current = try mapbook(["portal", "check"], home: home)
            #expect(current.status == 0, "\(current.stderr)")
            #expect(current.stdout.contains("'Sample Package' (\(id)): up to date"), "\(current.stdout)")
            #expect(try jsonArray(try mapbook(["portal", "check", "--json"], home: home).stdout).first?["updateAvailable"] as? Bool == false)

            let v2 = try TestPackages.makePackage(in: dir, name: "v2.mmpk", timestamp: 1_800_000_000)
            let published = try publish(v2, home: home)
            let newer = try mapbook(["portal", "check"], home: home)
            #expect(newer.status == 0)
            #expect(newer.stdout.contains("'Sample Package' (\(id)): update available"), "\(newer.stdout)")
            let json = try #require(try jsonArray(try mapbook(["portal", "check", "--json"], home: home).stdout).first)
            #expect(json["itemId"] as? String == id)
            #expect(json["updateAvailable"] as? Bool == true)
            #expect((json["modified"] as? NSNumber)?.int64Value == (published["modified"] as? NSNumber)?.int64Value)
            #expect((json["itemModifiedAtDownload"] as? NSNumber)?.int64Value ?? 0 < (json["modified"] as? NSNumber)?.int64Value ?? 0)

            let update = try mapbook(["portal", "update", "--all"], home: home)
            #expect(update.status == 0, "\(update.stderr)")
            #expect(update.stdout.contains("Updated 'Sample Package' (\(id))"), "\(update.stdout)")
            #expect(try sha256(home + "/downloads/\(id).mmpk") == (try sha256(v2)))
            #expect(try mapbook(["portal", "check"], home: home).stdout.contains("up to date"))
            let nothing = try mapbook(["portal", "update", id], home: home)
            #expect(nothing.status == 0 && !nothing.stdout.contains("Updated"), "\(nothing.stdout)")
        }
    }

    @Test func checkReportsAnItemNoLongerSharedWithTheUser() throws {
        try withPortal { server, dir in
            let aliceHome = dir + "/alice", bobHome = dir + "/bob"
            try signIn(server, home: aliceHome)
            let package = try TestPackages.makePackage(in: dir)
            let id = try #require(try publish(package, home: aliceHome, ["--share", "org"])["itemId"] as? String)
            try signIn(server, home: bobHome, user: Self.bob)
            #expect(try mapbook(["portal", "download", id], home: bobHome).status == 0)

            _ = try publish(package, home: aliceHome, ["--share", "private"])
            let check = try mapbook(["portal", "check", "--json"], home: bobHome)
            #expect(check.status == 0, "\(check.stderr)")
            let status = try #require(try jsonArray(check.stdout).first)
            #expect(status["status"] as? String == "unavailable")
            #expect(status["updateAvailable"] as? Bool == false)
            #expect((status["reason"] as? String)?.contains("does not exist or is inaccessible") == true)
            let text = try mapbook(["portal", "check"], home: bobHome)
            #expect(text.stdout.contains("no longer available on the portal"), "\(text.stdout)")
        }
    }

    @Test func checkAgainstAStoppedPortalSaysOfflineWithExitStatus3() throws {
        try withPortal { server, dir in
            let home = dir + "/home"
            try signIn(server, home: home)
            let id = try #require(try publish(try TestPackages.makePackage(in: dir), home: home)["itemId"] as? String)
            #expect(try mapbook(["portal", "download", id], home: home).status == 0)
            server.stop()

            let check = try mapbook(["portal", "check"], home: home)
            #expect(check.status == 3)
            #expect(check.stderr.contains("offline: cannot reach \(server.url)"), "\(check.stderr)")
            #expect(FileManager.default.fileExists(atPath: home + "/downloads/\(id).mmpk"), "being offline removes nothing")
        }
    }
}
