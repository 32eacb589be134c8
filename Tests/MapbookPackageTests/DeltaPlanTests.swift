import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// Updates by delta (issue 35): the plan built from two layouts, carried out against the two
/// files, gives the new file byte for byte, fetching only what differs.
@Suite struct DeltaPlanTests {
    /// Carries `plan` out: copies from `old`, "fetches" from `new`.
    func build(_ plan: DeltaPlan, old: String, new: String) throws -> [UInt8] {
        let before = try readFile(old), after = try readFile(new)
        var out: [UInt8] = []
        for run in plan.runs {
            switch run {
            case .copy(let offset, let length): out += before[Int(offset)..<Int(offset + length)]
            case .fetch(let offset, let length): out += after[Int(offset)..<Int(offset + length)]
            }
        }
        return out
    }

    /// A package over a GeoPackage of `rows` points, with the rows in `changed` renamed.
    func package(in dir: String, name: String, rows: Int, changed: Set<Int> = []) throws -> String {
        let gpkg = dir + "/\(name).gpkg"
        try TestPackages.makeGeoPackage(at: gpkg, rows: rows)
        if !changed.isEmpty {
            let db = try SQLiteDatabase(writablePath: gpkg)
            for fid in changed { _ = try db.query("UPDATE points SET NAME = 'Changed ' || fid WHERE fid = ?", [.integer(Int64(fid))]) }
            try db.close()
        }
        let path = dir + "/\(name).mmpk"
        _ = try PackageWriter.write(TestPackages.contents(geoPackage: gpkg), to: path)
        return path
    }

    @Test func aFewChangedRowsFetchAFewPagesAndTheResultIsTheNewFile() throws {
        try withTemporaryDirectory { dir in
            let old = try package(in: dir, name: "old", rows: 20_000)
            let new = try package(in: dir, name: "new", rows: 20_000, changed: [10, 11, 5_000])
            let plan = DeltaPlan(new: try PackageLayout.read(path: new), old: try PackageLayout.read(path: old))
            #expect(try build(plan, old: old, new: new) == readFile(new))
            let size = Int64(try readFile(new).count)
            #expect(plan.fileBytes == size)
            // Two or three changed pages of the data, the headers and the directory.
            #expect(plan.fetchedBytes < size / 20, "fetched \(plan.fetchedBytes) of \(size)")
            #expect(plan.requests <= 8, "\(plan.requests) requests")
        }
    }

    @Test func theSameContentFetchesOnlyTheHeadersAndAnUnrelatedFileIsFetchedWhole() throws {
        try withTemporaryDirectory { dir in
            let old = try package(in: dir, name: "old", rows: 5_000)
            let same = try package(in: dir, name: "same", rows: 5_000)
            let unchanged = DeltaPlan(new: try PackageLayout.read(path: same), old: try PackageLayout.read(path: old))
            #expect(try build(unchanged, old: old, new: same) == readFile(same))
            #expect(unchanged.fetchedBytes < 8_192, "\(unchanged.fetchedBytes)")
            // Nothing in common with a package of other data: every byte fetched, none invented.
            let other = try package(in: dir, name: "other", rows: 1)
            let whole = DeltaPlan(new: try PackageLayout.read(path: old), old: try PackageLayout.read(path: other))
            #expect(try build(whole, old: other, new: old) == readFile(old))
        }
    }

    @Test func aLayoutRoundTripsThroughJSONAndABadOneIsRefused() throws {
        try withTemporaryDirectory { dir in
            let layout = try PackageLayout.read(path: try package(in: dir, name: "p", rows: 3_000))
            #expect(layout.entries.contains { !$0.blocks.isEmpty })
            #expect(PackageLayout(json: try JSONParser.parse(JSONWriter.string(layout.jsonValue))) == layout)
            var bad = layout.jsonValue.objectValue!
            bad["blockSize"] = .integer(512)
            #expect(PackageLayout(json: .object(bad)) == nil)
            var overlapping = layout
            overlapping.entries[1].headerOffset = overlapping.entries[0].dataOffset
            #expect(PackageLayout(json: overlapping.jsonValue) == nil)
        }
    }
}
