import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

@Suite struct ZipArchiveTests {
    func writeZip(_ path: String, _ entries: [(String, [UInt8])], timestamp: Int64 = 1_700_000_000) throws {
        let file = try AtomicFile(destination: path)
        let zip = try ZipWriter(descriptor: file.descriptor, path: path)
        for (name, bytes) in entries {
            try zip.beginEntry(name: name, size: Int64(bytes.count), modificationTime: timestamp)
            try zip.write(bytes)
        }
        try zip.close()
        try file.commit()
    }

    @Test func writesStoredEntriesReadableInPlace() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/a.zip"
            let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            try writeZip(path, [("a.txt", Array("hello".utf8)), ("dir/é-ü.bin", big), ("empty", [])])
            let archive = try ZipArchive(path: path)
            #expect(archive.entries.map(\.name) == ["a.txt", "dir/é-ü.bin", "empty"])
            #expect(archive.entries.allSatisfy { $0.method == .stored && $0.nameIsUTF8 })
            let entry = try #require(archive.entry(named: "dir/é-ü.bin"))
            let range = try archive.dataRange(of: entry)
            #expect(range.length == Int64(big.count))
            // A byte range of the file: read the middle without reading the rest.
            #expect(try range.read(at: 1000, count: 16) == Array(big[1000..<1016]))
            #expect(try archive.verify(entry) == nil)
            #expect(archive.issues.isEmpty)
            // Other readers agree.
            let unzip = Process()
            unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
            unzip.arguments = ["-tqq", path]
            try unzip.run()
            unzip.waitUntilExit()
            #expect(unzip.terminationStatus == 0)
        }
    }

    /// An unpacked folder reads as an archive of stored entries: every file by its relative
    /// path, in place; links are not followed; a file that changes size after listing is refused.
    @Test func anUnpackedFolderReadsAsAnArchive() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/unpacked"
            try FileManager.default.createDirectory(atPath: root + "/p12/tile/L00", withIntermediateDirectories: true)
            try writeFile(root + "/p12/root.json", "{\"name\": \"x\"}")
            try writeFile(root + "/p12/tile/L00/R0000C0000.bundle", [UInt8](repeating: 7, count: 5000))
            try writeFile(dir + "/secret.txt", "outside")
            try FileManager.default.createSymbolicLink(atPath: root + "/link.txt", withDestinationPath: dir + "/secret.txt")
            let archive = try ZipArchive(folder: root + "/")
            #expect(archive.isFolder)
            #expect(archive.entries.map(\.name).sorted() == ["p12/root.json", "p12/tile/L00/R0000C0000.bundle"])
            let root_ = try #require(archive.entry(named: "p12/root.json"))
            #expect(try archive.read(root_) == Array("{\"name\": \"x\"}".utf8))
            let bundle = try #require(archive.entry(named: "p12/tile/L00/R0000C0000.bundle"))
            #expect(try archive.dataRange(of: bundle).read(at: 4990, count: 10) == [UInt8](repeating: 7, count: 10))
            try writeFile(root + "/p12/root.json", "{}")
            #expect(throws: ArchiveError.self) { try archive.read(root_) }
            #expect(throws: ArchiveError.self) { try ZipArchive(folder: dir + "/secret.txt") }
        }
    }

    @Test func sameEntriesAndTimeGiveIdenticalBytes() throws {
        try withTemporaryDirectory { dir in
            let entries = [("x/1", Array("one".utf8)), ("x/2", Array("two".utf8))]
            try writeZip(dir + "/1.zip", entries)
            try writeZip(dir + "/2.zip", entries)
            #expect(try readFile(dir + "/1.zip") == readFile(dir + "/2.zip"))
            try writeZip(dir + "/3.zip", entries, timestamp: 1_700_000_002)
            #expect(try readFile(dir + "/1.zip") != readFile(dir + "/3.zip"))
        }
    }

    @Test func switchesToZip64PastSixtyFiveThousandEntries() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/many.zip"
            let file = try AtomicFile(destination: path)
            let zip = try ZipWriter(descriptor: file.descriptor, path: path)
            for i in 0..<70_000 {
                try zip.beginEntry(name: "e/\(i)", size: 1, modificationTime: 0)
                try zip.write([UInt8(i & 0xFF)])
            }
            try zip.close()
            try file.commit()
            let archive = try ZipArchive(path: path)
            #expect(archive.usesZip64)
            #expect(archive.entries.count == 70_000)
            let last = try #require(archive.entry(named: "e/69999"))
            #expect(try archive.dataRange(of: last).readAll() == [UInt8(69_999 & 0xFF)])
        }
    }

    @Test func atomicFileLeavesNothingWhenDiscarded() throws {
        try withTemporaryDirectory { dir in
            do {
                let file = try AtomicFile(destination: dir + "/out.mmpk")
                try file.write(Array("partial".utf8))
            }
            #expect(listTree(dir).isEmpty)
            try AtomicFile.write(Array("done".utf8), to: dir + "/out.mmpk")
            #expect(listTree(dir) == ["out.mmpk"])
        }
    }

    @Test func refusesWhatIsNotAZip() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/text.mmpk", String(repeating: "not a zip ", count: 100))
            #expect {
                try ZipArchive(path: dir + "/text.mmpk")
            } throws: { "\($0)".contains("text.mmpk") && "\($0)".contains("not a ZIP archive") }
            try writeFile(dir + "/empty.mmpk", [])
            #expect { try ZipArchive(path: dir + "/empty.mmpk") } throws: { "\($0)".contains("empty") }
        }
    }

    @Test func refusesATruncatedArchive() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir)
            let bytes = try readFile(path)
            try writeFile(dir + "/cut.mmpk", Array(bytes.prefix(bytes.count / 2)))
            #expect {
                try ZipArchive(path: dir + "/cut.mmpk")
            } throws: { "\($0)".contains("cut.mmpk") && "\($0)".contains("truncated") }
            // Cut inside the central directory: the end record is intact, the directory is not.
            let archive = try ZipArchive(path: path)
            var shifted = bytes
            shifted.removeSubrange(Int(archive.centralDirectoryOffset + 10)..<Int(archive.centralDirectoryOffset + 60))
            try writeFile(dir + "/hole.mmpk", shifted)
            #expect(throws: ArchiveError.self) { try ZipArchive(path: dir + "/hole.mmpk") }
        }
    }

    @Test func streamsDeflatedEntriesAndCapsWhatTheyExpandTo() throws {
        try withTemporaryDirectory { dir in
            let text = Array(String(repeating: "mapbook ", count: 10_000).utf8)
            try RawZip([.init(name: "d.txt", data: RawZip.deflate(text), method: 8, crc: RawZip.crc32(text), uncompressedSize: UInt32(text.count))])
                .write(to: dir + "/d.zip")
            let archive = try ZipArchive(path: dir + "/d.zip")
            let entry = try #require(archive.entry(named: "d.txt"))
            #expect(try archive.read(entry) == text)
            #expect(try archive.verify(entry) == nil)
            #expect(throws: ArchiveError.self) { try archive.dataRange(of: entry) }
            // An entry that claims 100 bytes but inflates to 80,000 stops at the claim.
            try RawZip([.init(name: "liar", data: RawZip.deflate(text), method: 8, crc: 0, uncompressedSize: 100)]).write(to: dir + "/liar.zip")
            let liar = try ZipArchive(path: dir + "/liar.zip")
            #expect { try liar.read(liar.entries[0]) } throws: { "\($0)".contains("ZIP bomb") }
        }
    }

    @Test func opensAnArchiveStoredInsideAnotherInPlace() throws {
        try withTemporaryDirectory { dir in
            try writeZip(dir + "/inner.zip", [("deep/file.txt", Array("inside".utf8))])
            try writeZip(dir + "/outer.zip", [("a", [1, 2, 3]), ("p20/inner.vtpk", try readFile(dir + "/inner.zip"))])
            let outer = try ZipArchive(path: dir + "/outer.zip")
            let inner = try ZipArchive(range: try outer.dataRange(of: outer.entry(named: "p20/inner.vtpk")!), displayPath: "outer.zip[p20/inner.vtpk]")
            #expect(try inner.read(inner.entry(named: "deep/file.txt")!) == Array("inside".utf8))
        }
    }

    @Test(arguments: [
        ("/etc/passwd", true), ("../evil", true), ("a/../../evil", true), ("C:/x", true), ("a\\..\\b", true), ("", true),
        ("a\u{0}b", true), ("p20/data.gpkg", false), ("..a/b..", false), ("./p20/x", false),
    ])
    func flagsUnsafeEntryNames(_ input: (String, Bool)) {
        #expect((EntryName.problem(input.0) != nil) == input.1)
    }
}
