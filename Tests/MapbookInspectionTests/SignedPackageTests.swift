import Foundation
import MapbookInspection
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// Signed packages (issue 35, docs/FORMAT.md "Signature"): the signature covers every entry
/// through the manifest's digests, a change anywhere is refused, and another tool can check it.
@Suite struct SignedPackageTests {
    static let now: Int64 = 1_795_305_600_000

    func keyPair(_ dir: String, _ name: String = "publisher") throws -> (SigningKey, String) {
        let path = dir + "/" + name
        let key = SigningKey()
        try key.write(to: path)
        return (try SigningKey(file: path), path)
    }

    func codes(_ path: String, trusting keys: [PublicSigningKey] = []) -> [String: Diagnostic.Severity] {
        var out: [String: Diagnostic.Severity] = [:]
        for d in PackageValidator.validate(path: path, options: ValidationOptions(now: Self.now, trustedKeys: keys)).diagnostics {
            out[d.code] = min(out[d.code] ?? d.severity, d.severity)
        }
        return out
    }

    @Test func aSignedPackageValidatesAndOnlyATrustedKeyMakesItTrusted() throws {
        try withTemporaryDirectory { dir in
            let (key, _) = try keyPair(dir)
            let unsigned = try TestPackages.makePackage(in: dir)
            #expect(codes(unsigned) == ["signature.none": .note])
            let signed = dir + "/signed.mmpk"
            let signers = try PackageSigner.sign(unsigned, keys: [key], output: signed)
            #expect(signers == [key.publicKey])
            #expect(codes(signed) == ["signature.untrusted": .warning])
            #expect(codes(signed, trusting: [key.publicKey]) == ["signature.trusted": .note])
            // Untrusted fails only a strict validation.
            let report = PackageValidator.validate(path: signed, options: ValidationOptions(now: Self.now))
            #expect(report.passes(strict: false) && !report.passes(strict: true))
            // Every byte before the signature entry is the unsigned package's.
            let before = try Array(Data(contentsOf: URL(fileURLWithPath: unsigned)))
            let after = try Array(Data(contentsOf: URL(fileURLWithPath: signed)))
            let cut = Int(try ZipArchive(path: unsigned).centralDirectoryOffset)
            #expect(Array(after.prefix(cut)) == Array(before.prefix(cut)))
            #expect(try ZipArchive(path: signed).entries.last?.name == "Sample.info.sig")
        }
    }

    @Test func writingAPackageSignedGivesTheSameBytesAsSigningItAfterwards() throws {
        try withTemporaryDirectory { dir in
            let (key, _) = try keyPair(dir)
            let gpkg = dir + "/data.gpkg"
            try TestPackages.makeGeoPackage(at: gpkg)
            _ = try PackageWriter.write(TestPackages.contents(geoPackage: gpkg), to: dir + "/a.mmpk", signingKeys: [key])
            _ = try PackageWriter.write(TestPackages.contents(geoPackage: gpkg), to: dir + "/b.mmpk")
            _ = try PackageSigner.sign(dir + "/b.mmpk", keys: [key])
            // Ed25519 is deterministic: the same key and manifest give the same signature.
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/a.mmpk")) == Data(contentsOf: URL(fileURLWithPath: dir + "/b.mmpk")))
        }
    }

    @Test func opensslChecksTheSignatureAsFORMATmdSays() throws {
        try withTemporaryDirectory { dir in
            let (key, keyPath) = try keyPair(dir)
            let path = try TestPackages.makePackage(in: dir)
            _ = try PackageSigner.sign(path, keys: [key])
            let archive = try ZipArchive(path: path)
            let manifest = try archive.read(archive.entry(named: "Sample.info")!)
            let entry = try JSONParser.parseObject(archive.read(archive.entry(named: "Sample.info.sig")!), path: "sig")
            let signature = try #require(entry["signatures"]?.arrayValue?.first?.objectValue?["signature"]?.stringValue.flatMap(Base64.decode))
            try Data(manifest).write(to: URL(fileURLWithPath: dir + "/Sample.info"))
            try Data(signature).write(to: URL(fileURLWithPath: dir + "/sig.bin"))
            let verify = try ExternalTools.run("/usr/bin/openssl", ["pkeyutl", "-verify", "-pubin", "-inkey", keyPath + ".pub", "-rawin", "-in", dir + "/Sample.info", "-sigfile", dir + "/sig.bin"])
            #expect(verify.status == 0 && verify.output.contains("Signature Verified Successfully"), "\(verify)")
            // The private key file is one openssl reads, and its public half is the .pub.
            let derived = try ExternalTools.run("/usr/bin/openssl", ["pkey", "-in", keyPath, "-pubout"])
            #expect(derived.output == (try String(contentsOfFile: keyPath + ".pub", encoding: .utf8)))
            // The fingerprint as FORMAT.md computes it.
            let der = try ExternalTools.run("/bin/sh", ["-c", "openssl pkey -pubin -in '\(keyPath).pub' -outform DER | openssl dgst -sha256 -binary | base64 | tr -d ="])
            #expect("SHA256:" + der.output.trimmingCharacters(in: .whitespacesAndNewlines) == key.publicKey.fingerprint)
        }
    }

    /// One byte changed in any entry of a signed package is refused: by validate, and by
    /// opening it for use.
    @Test func aByteFlippedInAnyEntryIsRefused() throws {
        try withTemporaryDirectory { dir in
            let (key, _) = try keyPair(dir)
            let path = try TestPackages.makePackage(in: dir)
            _ = try PackageSigner.sign(path, keys: [key])
            let archive = try ZipArchive(path: path)
            let original = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            var checked = 0
            for entry in archive.entries {
                let data = try archive.dataRange(of: entry)
                for position in [data.offset, data.offset + data.length / 2, data.offset + data.length - 1] {
                    var bytes = original
                    bytes[Int(position)] ^= 0x01
                    let bad = dir + "/bad.mmpk"
                    try Data(bytes).write(to: URL(fileURLWithPath: bad))
                    let errors = PackageValidator.validate(path: bad, options: ValidationOptions(now: Self.now, trustedKeys: [key.publicKey]))
                        .diagnostics.filter { $0.severity == .error }
                    #expect(!errors.isEmpty, "\(entry.name) at \(position): no error")
                    #expect(throws: (any Error).self, "\(entry.name) at \(position) opened") { try VerifiedFiles(folder: nil).open(bad) }
                    checked += 1
                }
            }
            #expect(checked == archive.entries.count * 3)
        }
    }

    @Test func aDamagedSignatureEntryIsAFindingNeverACrash() throws {
        try withTemporaryDirectory { dir in
            let (key, _) = try keyPair(dir)
            let (other, _) = try keyPair(dir, "other")
            let path = try TestPackages.makePackage(in: dir)
            _ = try PackageSigner.sign(path, keys: [key])
            let entries = try TestPackages.rawEntries(of: path)
            let sig = entries.last!
            #expect(sig.name == "Sample.info.sig")
            let text = String(decoding: sig.data, as: UTF8.self)
            // Another package's signature: of another manifest.
            let second = try TestPackages.makePackage(in: dir, name: "Other.mmpk", timestamp: 1_795_400_000)
            _ = try PackageSigner.sign(second, keys: [other])
            let foreign = try TestPackages.rawEntries(of: second).last!.data
            let cases: [(String, [RawZip.Entry], String)] = [
                ("truncated", entries.dropLast() + [.init(name: sig.name, data: Array(sig.data.prefix(sig.data.count / 2)))], "signature.invalid"),
                ("not JSON", entries.dropLast() + [.init(name: sig.name, text: "\u{0}\u{1}garbage")], "signature.invalid"),
                ("unknown algorithm", entries.dropLast() + [.init(name: sig.name, text: text.replacing("Ed25519", with: "RSA"))], "signature.invalid"),
                ("doubled", entries + [.init(name: "Copy.info.sig", data: sig.data)], "signature.duplicate"),
                ("another manifest's", entries.dropLast() + [.init(name: sig.name, data: foreign)], "signature.manifest"),
                ("a changed signature", entries.dropLast() + [.init(name: sig.name, text: Self.flipSignature(text))], "signature.bad"),
            ]
            for (what, list, code) in cases {
                let bad = dir + "/bad.mmpk"
                try RawZip(list).write(to: bad)
                let found = codes(bad, trusting: [key.publicKey])
                #expect(found[code] == .error, "\(what): \(found)")
                #expect(throws: PackageFormatError.self, "\(what) opened") { try MobileMapPackage(path: bad) }
            }
            // An entry added to a signed package is outside the signature: an error, not a warning.
            let added = dir + "/added.mmpk"
            try RawZip(entries + [.init(name: "p20/extra.gpkg", text: "x")]).write(to: added)
            #expect(codes(added, trusting: [key.publicKey])["manifest.unlisted"] == .error)
            #expect(throws: (any Error).self) { try VerifiedFiles(folder: nil).open(added) }
        }
    }

    static func flipSignature(_ text: String) -> String {
        // The first signature's first base64 character changed: still 64 bytes, now wrong.
        guard let range = text.range(of: "\"signature\" : \"") ?? text.range(of: "\"signature\": \"") else { return text }
        var out = text
        let at = range.upperBound
        out.replaceSubrange(at...at, with: text[at] == "A" ? "B" : "A")
        return out
    }

    /// Moving to a new key: the package carries both signatures for a while, and a device that
    /// trusts either accepts it; once re-signed with the new key alone, only it does.
    @Test func keyRotationSignsWithBothKeysThenTheNewOne() throws {
        try withTemporaryDirectory { dir in
            let (old, _) = try keyPair(dir, "old")
            let (new, _) = try keyPair(dir, "new")
            let path = try TestPackages.makePackage(in: dir)
            _ = try PackageSigner.sign(path, keys: [old])
            _ = try PackageSigner.sign(path, keys: [old, new])
            #expect(try ZipArchive(path: path).entries.filter { $0.name.hasSuffix(".sig") }.count == 1)
            #expect(codes(path, trusting: [old.publicKey])["signature.trusted"] == .note)
            #expect(codes(path, trusting: [new.publicKey])["signature.trusted"] == .note)
            _ = try PackageSigner.sign(path, keys: [new])
            #expect(codes(path, trusting: [old.publicKey])["signature.untrusted"] == .warning)
            #expect(codes(path, trusting: [new.publicKey])["signature.trusted"] == .note)
        }
    }

    @Test func aPrivateKeyOthersCanReadIsRefusedAndAKeyIsNeverReplaced() throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try keyPair(dir)
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            chmod(path, 0o644)
            #expect { try SigningKey(file: path) } throws: { ($0 as? SignatureError)?.kind == .keyPermissions }
            #expect { try SigningKey().write(to: path) } throws: { ($0 as? SignatureError)?.kind == .keyExists }
            #expect { try SigningKey(file: path + ".pub") } throws: { ($0 as? SignatureError)?.kind == .invalidKey || ($0 as? SignatureError)?.kind == .keyPermissions }
            try "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".write(toFile: dir + "/junk", atomically: true, encoding: .utf8)
            chmod(dir + "/junk", 0o600)
            #expect { try SigningKey(file: dir + "/junk") } throws: { ($0 as? SignatureError)?.kind == .invalidKey }
        }
    }

    /// A signed file is read whole the first time it is opened for use, then known by its
    /// identity; a change made after that check is caught at the next open.
    @Test func aFileChangedAfterItsCheckIsCheckedAgain() throws {
        try withTemporaryDirectory { dir in
            let (key, _) = try keyPair(dir)
            let path = try TestPackages.makePackage(in: dir)
            _ = try PackageSigner.sign(path, keys: [key])
            let verified = VerifiedFiles(folder: dir + "/verified")
            _ = try verified.open(path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/verified").count == 1)
            // The same size, one byte of the data changed in place.
            let archive = try ZipArchive(path: path)
            let data = try archive.dataRange(of: archive.entry(named: "p20/data.gpkg")!)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            try handle.seek(toOffset: UInt64(data.offset + 200))
            let byte = try handle.read(upToCount: 1)!
            try handle.seek(toOffset: UInt64(data.offset + 200))
            try handle.write(contentsOf: Data([byte[0] ^ 0xFF]))
            try handle.close()
            #expect { try verified.open(path) } throws: { ($0 as? PackageFormatError)?.kind == .signature(.entryMismatch) }
        }
    }
}
