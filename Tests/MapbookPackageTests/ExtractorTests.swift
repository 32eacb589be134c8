import Foundation
import MapbookPackage
import MapbookTestSupport
import Testing

@Suite struct ExtractorTests {
    @Test func unpacksEveryEntryByteForByte() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir)
            let summary = try SafeExtractor.extract(archivePath: path, to: dir + "/out")
            let archive = try ZipArchive(path: path)
            #expect(summary.files == archive.entries.count)
            for entry in archive.entries {
                #expect(try readFile(dir + "/out/" + entry.name) == archive.read(entry))
            }
        }
    }

    @Test(arguments: BadPackage.allCases.filter { $0 != .missingInfo && $0 != .mapNotJSON && $0 != .pathToNowhere })
    func refusesBadArchivesAndWritesNothing(_ bad: BadPackage) throws {
        try withTemporaryDirectory { dir in
            let path = try bad.make(in: dir)
            let before = listTree(dir)
            #expect(throws: (any Error).self) { try SafeExtractor.extract(archivePath: path, to: dir + "/out") }
            #expect(listTree(dir) == before, "extraction left files behind")
            #expect(!FileManager.default.fileExists(atPath: "/tmp/mapbook-absolute.txt"))
        }
    }

    @Test func aLyingBombIsStoppedWhileInflatingAndCleanedUp() throws {
        try withTemporaryDirectory { dir in
            // Claims 1 MiB (no suspicious ratio), inflates to 64 MiB.
            let bomb = RawZip.zeroBomb(mebibytes: 64)
            try RawZip([
                .init(name: "ok.txt", text: "fine"),
                .init(name: "zeros.bin", data: bomb.deflated, method: 8, crc: bomb.crc, uncompressedSize: 1 << 20),
            ]).write(to: dir + "/liar.zip")
            #expect {
                try SafeExtractor.extract(archivePath: dir + "/liar.zip", to: dir + "/out")
            } throws: { "\($0)".contains("zeros.bin") }
            #expect(listTree(dir) == ["liar.zip"])
        }
    }

    @Test func refusesANonEmptyTargetAndEntriesThatCollide() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir)
            try writeFile(dir + "/busy/keep.txt", "mine")
            #expect { try SafeExtractor.extract(archivePath: path, to: dir + "/busy") } throws: { "\($0)".contains("not empty") }
            #expect(try readFile(dir + "/busy/keep.txt") == Array("mine".utf8))

            try RawZip([.init(name: "a", text: "file"), .init(name: "a/b", text: "needs a folder")]).write(to: dir + "/clash.zip")
            #expect(throws: ExtractionError.self) { try SafeExtractor.extract(archivePath: dir + "/clash.zip", to: dir + "/out") }
            try RawZip([.init(name: "x/y", text: "1"), .init(name: "x//./y", text: "2")]).write(to: dir + "/same.zip")
            #expect(throws: ExtractionError.self) { try SafeExtractor.extract(archivePath: dir + "/same.zip", to: dir + "/out") }
            #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
        }
    }

    @Test func refusesADamagedEntryFoundOnlyWhileWriting() throws {
        try withTemporaryDirectory { dir in
            try RawZip([.init(name: "one", text: "1"), .init(name: "two/three", data: Array("3".utf8), crc: 42)]).write(to: dir + "/crc.zip")
            #expect {
                try SafeExtractor.extract(archivePath: dir + "/crc.zip", to: dir + "/out")
            } throws: { "\($0)".contains("CRC") && "\($0)".contains("nothing was written") }
            #expect(listTree(dir) == ["crc.zip"])
        }
    }

    @Test func capsTheTotalSize() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir)
            var limits = ExtractionLimits()
            limits.maximumTotalSize = 1000
            #expect { try SafeExtractor.extract(archivePath: path, to: dir + "/out", limits: limits) } throws: { "\($0)".contains("more than the 1000") }
        }
    }
}
