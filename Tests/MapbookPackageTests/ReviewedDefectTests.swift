import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing
import MapbookInspection

/// Defects found in review, each pinned down by the input that showed it.
@Suite struct ReviewedDefectTests {
    /// X is stored and its data holds complete entries Y and Z, which the central directory
    /// also lists: three names, two of them reading bytes that belong to X.
    func nestedEntries(at path: String) throws {
        let y = Array("yyyy".utf8), z = Array("zzzzzz".utf8)
        let yLocal = RawZip.localHeader(name: "y", crc: RawZip.crc32(y), compressedSize: 4, size: 4) + y
        let zLocal = RawZip.localHeader(name: "z", crc: RawZip.crc32(z), compressedSize: 6, size: 6) + z
        let xData = yLocal + zLocal
        let xHeader = RawZip.localHeader(name: "x", crc: 0, compressedSize: 0, size: 0).count
        var entries = [RawZip.Entry(name: "x", data: xData)]
        var yEntry = RawZip.Entry(name: "y", data: y)
        yEntry.centralOnlyAt = UInt32(xHeader)
        var zEntry = RawZip.Entry(name: "z", data: z)
        zEntry.centralOnlyAt = UInt32(xHeader + yLocal.count)
        entries += [yEntry, zEntry]
        try RawZip(entries).write(to: path)
    }

    @Test func everyEntryInsideAnotherIsReportedAsOverlapping() throws {
        try withTemporaryDirectory { dir in
            try nestedEntries(at: dir + "/nested.zip")
            let overlaps = try ZipArchive(path: dir + "/nested.zip").layoutProblems().filter { $0.kind == .overlap }
            #expect(Set(overlaps.map(\.entry.name)) == ["y", "z"])
            #expect(overlaps.allSatisfy { $0.message.contains("overlaps the data of") })
            let codes = PackageValidator.validate(path: dir + "/nested.zip").diagnostics.filter { $0.code == "zip.overlap" }
            #expect(codes.count == 2)
        }
    }

    @Test func extractRefusesEntriesThatShareData() throws {
        try withTemporaryDirectory { dir in
            try nestedEntries(at: dir + "/nested.zip")
            #expect { try SafeExtractor.extract(archivePath: dir + "/nested.zip", to: dir + "/out") } throws: { "\($0)".contains("overlaps") }
            // The classic form: one deflated kernel under many names (each within the per-entry ratio).
            // Low-entropy bytes: each entry expands a few times only, far under the per-entry limit.
            var state: UInt32 = 1
            let kernel = (0..<(1 << 20)).map { _ -> UInt8 in
                state = state &* 1_103_515_245 &+ 12345
                return UInt8(state >> 30)
            }
            var aliases = [RawZip.Entry(name: "k0", data: RawZip.deflate(kernel), method: 8, crc: RawZip.crc32(kernel), uncompressedSize: UInt32(kernel.count))]
            for i in 1..<300 {
                var alias = aliases[0]
                alias.name = "k\(i)"
                alias.centralOnlyAt = 0
                aliases.append(alias)
            }
            try RawZip(aliases).write(to: dir + "/aliases.zip")
            #expect { try SafeExtractor.extract(archivePath: dir + "/aliases.zip", to: dir + "/out") } throws: { error in
                guard let error = error as? ExtractionError else { return false }
                let kinds = error.problems.map(\.kind)
                return kinds.contains(.layout(.localHeader)) && kinds.contains(.zipBomb) && error.path.hasSuffix("/aliases.zip")
                    && "\(error)".contains("more problems")
            }
            #expect(listTree(dir) == ["aliases.zip", "nested.zip"])
        }
    }

    @Test(arguments: ["out/", "out//", "empty", "empty/"])
    func extractAcceptsTrailingSlashesAndEmptyFolders(_ target: String) throws {
        try withTemporaryDirectory { dir in
            let package = try TestPackages.makePackage(in: dir)
            try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
            _ = try SafeExtractor.extract(archivePath: package, to: dir + "/" + target)
            let root = dir + "/" + target.split(separator: "/")[0]
            #expect(FileManager.default.fileExists(atPath: root + "/p20/First Map.mmap"))
            #expect(!listTree(root).contains { $0.hasPrefix(".mapbook-extract") })
        }
    }

    @Test func countingRowsNeverRunsAViewTheFileDefines() throws {
        try withTemporaryDirectory { dir in
            try TestPackages.makeGeoPackage(at: dir + "/v.gpkg")
            let db = try SQLiteDatabase(writablePath: dir + "/v.gpkg", create: false)
            try db.execute("""
                CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c;
                INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES ('forever', 'attributes', 'forever');
                """)
            try db.close()
            let report = try PackageInspector.inspect(path: dir + "/v.gpkg")
            let view = try #require(report.dataFiles.first?.tables.first { $0.name == "forever" })
            #expect(view.rowCount == nil)
            #expect(view.problem?.contains("view") == true)
        }
    }

    @Test func inPlaceDatabasesCanSpillSortsToTemporaryFiles() throws {
        try withTemporaryDirectory { dir in
            let db = try SQLiteDatabase(writablePath: dir + "/big.sqlite")
            try db.execute("CREATE TABLE t (a TEXT, b TEXT); BEGIN")
            let insert = try db.prepare("INSERT INTO t VALUES (?, ?)")
            for i in 0..<60_000 {
                try insert.bind([.text(String(repeating: "a", count: 40) + String(i)), .text(String(i * 7919 % 60_000))])
                _ = try insert.step()
            }
            try db.execute("COMMIT")
            try db.close()
            try RawZip([.init(name: "big.sqlite", data: try readFile(dir + "/big.sqlite"))]).write(to: dir + "/p.zip")
            let archive = try ZipArchive(path: dir + "/p.zip")
            let inPlace = try SQLiteDatabase(range: try archive.dataRange(of: archive.entries[0]), displayPath: "p.zip[big.sqlite]")
            // A tiny cache makes the sort spill to a temporary file, opened through the VFS.
            try inPlace.execute("PRAGMA cache_size = -64; PRAGMA temp_store = FILE")
            let rows = try inPlace.query("SELECT b || a FROM t ORDER BY b || a LIMIT 1 OFFSET 59999")
            #expect(rows.count == 1)
        }
    }
}
