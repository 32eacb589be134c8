import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// Signed packages end to end (issue 35): keys made, packages signed, keys registered at the
/// portal and trusted by devices at sign-in, unsigned or foreign-signed packages refused where
/// the portal requires signatures, and a key rotated out at the portal no longer trusted.
extension PortalClientTests {
    @Test func thePortalTakesOnlyPackagesSignedByTheirOwnersKeysAndDevicesTrustThoseKeys() throws {
        try withPortal { server, dir in
            let a = dir + "/alice", b = dir + "/bob"
            for (key, result) in [("old", try mapbook(["keys", "create", dir + "/old"], home: a)), ("new", try mapbook(["keys", "create", dir + "/new"], home: a))] {
                #expect(result.status == 0 && result.stdout.contains("fingerprint SHA256:"), "\(key): \(result.stderr)")
            }
            #expect(try mode(dir + "/old") == 0o600)
            let old = try PublicSigningKey(file: dir + "/old.pub"), new = try PublicSigningKey(file: dir + "/new.pub")
            // A stranger's key, which alice never registers.
            _ = try mapbook(["keys", "create", dir + "/stranger"], home: a)

            try signIn(server, home: a)
            let token = try #require(try credential(a)["token"] as? String)
            let registered = try mapbook(["portal", "keys", "add", dir + "/old.pub"], home: a)
            #expect(registered.status == 0 && registered.stdout.contains(old.fingerprint), "\(registered.stderr)")
            let update = try Curl.json(["-d", "requirePackageSignatures=true&f=json&token=\(token)", "\(server.url)/sharing/rest/portals/self/update"])
            #expect(update["success"]?.boolValue == true, "\(update)")

            let unsigned = try TestPackages.makePackage(in: dir, name: "Water.mmpk")
            let refused = try mapbook(["portal", "publish", unsigned], home: a)
            #expect(refused.status == 1 && refused.stderr.contains("accepts only signed packages"), "\(refused.stderr)")
            let foreign = dir + "/foreign.mmpk"
            #expect(try mapbook(["sign", unsigned, "--key", dir + "/stranger", "-o", foreign], home: a).status == 0)
            let refusedForeign = try mapbook(["portal", "publish", foreign], home: a)
            #expect(refusedForeign.status == 1 && refusedForeign.stderr.contains("has not registered"), "\(refusedForeign.stderr)")
            #expect(try jsonArray(try mapbook(["portal", "search", "--json", "--type", "any"], home: a).stdout).isEmpty)

            let signed = try mapbook(["sign", unsigned, "--key", dir + "/old"], home: a)
            #expect(signed.status == 0 && signed.stdout.contains(old.fingerprint), "\(signed.stderr)")
            let id = try #require(try publish(unsigned, home: a)["itemId"] as? String)
            _ = try mapbook(["portal", "publish", unsigned, "--share", "org"], home: a)

            // Bob's device trusts alice's key from the sign-in on, and takes the package.
            let bobIn = try signIn(server, home: b, user: Self.bob)
            // Alice's key, and the portal's own (it signs the packages the portal makes).
            #expect(bobIn.stdout.contains("Trusting the 2 package signing keys"), "\(bobIn.stdout)")
            let trusted = try jsonArray(try mapbook(["library", "trust", "list", "--json"], home: b).stdout)
            #expect(trusted.map { $0["name"] as? String } == ["the portal itself", "alice"], "\(trusted)")
            #expect(trusted.last?["fingerprint"] as? String == old.fingerprint)
            let portalKey = try #require(trusted.first?["fingerprint"] as? String)
            #expect(try mapbook(["portal", "download", id], home: b).status == 0)
            let held = b + "/downloads/\(id).mmpk"
            let validated = try mapbook(["validate", held, "--strict"], home: b)
            #expect(validated.status == 0 && validated.stdout.contains("signature.trusted"), "\(validated.stdout)")

            // Rotation: the new key registered, the package signed by both, the old key withdrawn.
            #expect(try mapbook(["portal", "keys", "add", dir + "/new.pub"], home: a).status == 0)
            #expect(try mapbook(["sign", unsigned, "--key", dir + "/old", "--key", dir + "/new"], home: a).status == 0)
            _ = try publish(unsigned, home: a)
            #expect(try mapbook(["portal", "keys", "remove", old.fingerprint], home: a).status == 0)
            try signIn(server, home: b, user: Self.bob)
            let after = try jsonArray(try mapbook(["library", "trust", "list", "--json"], home: b).stdout).map { $0["fingerprint"] as? String }
            #expect(after == [portalKey, new.fingerprint], "the withdrawn key must go at the next sign-in: \(after)")
            // The copy bob holds, signed by the old key alone, is now untrusted: a warning.
            let stale = try mapbook(["validate", held], home: b)
            #expect(stale.status == 0 && stale.stdout.contains("signature.untrusted"), "\(stale.stdout)")
            #expect(try mapbook(["validate", held, "--strict"], home: b).status == 1)
            // Only the new key's signature is accepted by the portal now.
            #expect(try mapbook(["sign", unsigned, "--key", dir + "/old"], home: a).status == 0)
            #expect(try mapbook(["portal", "publish", unsigned], home: a).status == 1)
        }
    }

    /// A package changed after signing is refused by every command that opens it.
    @Test func aTamperedSignedPackageIsRefusedByEveryCommandThatOpensIt() throws {
        try withTemporaryDirectory { dir in
            let home = dir + "/home"
            #expect(try mapbook(["keys", "create", dir + "/key"], home: home).status == 0)
            let path = try TestPackages.makePackage(in: dir, name: "Water.mmpk")
            #expect(try mapbook(["sign", path, "--key", dir + "/key"], home: home).status == 0)
            let archive = try ZipArchive(path: path)
            let data = try archive.dataRange(of: archive.entry(named: "p20/First Map.mmap")!)
            var bytes = try readFile(path)
            // A space in the map's JSON becomes another space-like byte: still JSON, not what was signed.
            let at = try #require((Int(data.offset)..<Int(data.offset + data.length)).first { bytes[$0] == 0x20 })
            bytes[at] = 0x09
            try writeFile(path, bytes)
            for command in [["toc", path], ["legend", path], ["bookmarks", path], ["render", path, "-o", dir + "/out.png"], ["library", "add", path], ["extract", path, dir + "/unpacked"]] {
                let result = try mapbook(command, home: home)
                #expect(result.status != 0 && result.stderr.contains("changed after it was made"), "\(command[0]): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/unpacked"), "extract wrote nothing")
            let validated = try mapbook(["validate", path], home: home)
            #expect(validated.status == 1 && validated.stdout.contains("manifest.hash"), "\(validated.stdout)")
        }
    }
}
