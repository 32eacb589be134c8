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
            case .patch: Issue.record("no patches were given")
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
            // The JSON holds each entry's block count; its hashes are a file of their own.
            var read = try #require(PackageLayout(json: try JSONParser.parse(JSONWriter.string(layout.jsonValue))))
            for (i, e) in read.entries.enumerated() where e.blockCount > 0 {
                read.entries[i].blocks = try #require(PackageLayout.blocks(PackageLayout.blocksBytes(layout.entries[i]), of: e))
            }
            #expect(read == layout)
            #expect(PackageLayout.blocks([1, 2, 3], of: read.entries.first { $0.blockCount > 0 }!) == nil)
            var bad = layout.jsonValue.objectValue!
            bad["blockSize"] = .integer(512)
            #expect(PackageLayout(json: .object(bad)) == nil)
            var overlapping = layout
            overlapping.entries[1].headerOffset = overlapping.entries[0].dataOffset
            #expect(PackageLayout(json: overlapping.jsonValue) == nil)
        }
    }
}

/// Entry patches (issue 35): a changed entry built from the one held by a Zstandard patch,
/// checked, in chains across versions; a damaged patch refused, never a crash.
@Suite struct EntryPatchTests {
    /// Bytes like a map's text: lines that shift when one changes.
    func text(_ lines: Int, changing: Set<Int> = []) -> [UInt8] {
        Array((0..<lines).map { changing.contains($0) ? "line \($0): changed to something longer\n" : "line \($0): \($0 * 7919 % 10007)\n" }.joined().utf8)
    }

    func patch(_ old: [UInt8], _ new: [UInt8], limit: Int = .max) throws -> [UInt8]? {
        try old.withUnsafeBytes { o in try new.withUnsafeBytes { n in try EntryPatch.make(from: o, to: n, limit: limit, path: "test") } }
    }

    func apply(_ patch: [UInt8], _ old: [UInt8], size: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        try patch.withUnsafeBytes { p in try old.withUnsafeBytes { o in try EntryPatch.apply(p, to: o, size: Int64(size), path: "test") { out += $0 } } }
        return out
    }

    @Test func aPatchGivesTheNewBytesAndCostsWhatChanged() throws {
        let old = text(20_000), new = text(20_000, changing: [5, 9_000, 19_999])
        let p = try #require(try patch(old, new))
        #expect(try apply(p, old, size: new.count) == new)
        // Three lines changed in 400 KB of text that shifts after each: a few hundred bytes.
        #expect(p.count < 1_000, "\(p.count) bytes")
        // Not worth it: nil rather than a patch larger than the limit.
        #expect(try patch(old, Array(repeating: 7, count: 1) + Array(new.reversed()), limit: 1_000) == nil)
    }

    @Test(ExternalTools.zstdRequired) func zstdAppliesThePatchToo() throws {
        try withTemporaryDirectory { dir in
            let old = text(5_000), new = text(5_000, changing: [100])
            let p = try #require(try patch(old, new))
            try writeFile(dir + "/old", old)
            try writeFile(dir + "/patch.zst", p)
            let run = try ExternalTools.run(ExternalTools.zstd, ["-q", "-d", "--long=31", "--patch-from=\(dir)/old", "\(dir)/patch.zst", "-o", "\(dir)/new"])
            #expect(run.status == 0, "\(run.output)")
            #expect(try readFile(dir + "/new") == new)
        }
    }

    @Test func aDamagedTruncatedOrForeignPatchIsRefused() throws {
        let old = text(5_000), new = text(5_000, changing: [100, 4_000])
        let p = try #require(try patch(old, new))
        func refused(_ patch: [UInt8], _ from: [UInt8], size: Int) -> Bool {
            do {
                _ = try apply(patch, from, size: size)
                return false
            } catch let error as ArchiveError {
                return error.kind == .damaged
            } catch { return false }
        }
        #expect(refused(Array(p.prefix(p.count / 2)), old, size: new.count))
        #expect(refused(p + [0x28, 0xB5, 0x2F, 0xFD], old, size: new.count))
        #expect(refused(p, old, size: new.count - 1))
        #expect(refused(p, old, size: new.count + 1))
        var flipped = p
        flipped[p.count / 2] ^= 0x40
        #expect(refused(flipped, old, size: new.count))
        // Applied to other bytes than it was made from: its checksum fails.
        #expect(refused(p, text(5_000, changing: [1]), size: new.count))
        #expect(refused([1, 2, 3], old, size: new.count))
        #expect(refused([], old, size: new.count))
    }

    @Test func aChainIsFoundFromAnyEntryHeldAndTheCheapestWins() {
        func h(_ c: Character) -> String { String(repeating: c, count: 64) }
        let index = PatchIndex(patches: [
            .init(name: "d", from: h("a"), fromSize: 1, to: h("b"), toSize: 1, size: 100, modified: 2),
            .init(name: "d", from: h("b"), fromSize: 1, to: h("c"), toSize: 1, size: 100, modified: 3),
            .init(name: "d", from: h("a"), fromSize: 1, to: h("c"), toSize: 1, size: 500, modified: 3),
        ])
        #expect(index.chain(to: h("c"), from: [h("a")])?.map(\.size) == [100, 100])
        #expect(index.chain(to: h("c"), from: [h("b")])?.map(\.size) == [100])
        #expect(index.chain(to: h("c"), from: [h("e")]) == nil)
        #expect(PatchIndex(json: index.jsonValue) == index)
        // A patch named by anything but two hashes would name another file: refused.
        var bad = index
        bad.patches[0].from = "../../x"
        #expect(PatchIndex(json: bad.jsonValue) == nil)
    }

    @Test func aPlanWithPatchesBuildsTheNewFileAcrossTwoVersions() throws {
        try withTemporaryDirectory { dir in
            let plans = DeltaPlanTests()
            let v1 = try plans.package(in: dir, name: "v1", rows: 20_000)
            let v2 = try plans.package(in: dir, name: "v2", rows: 20_000, changed: Set(stride(from: 3, to: 20_000, by: 400)))
            let v3 = try plans.package(in: dir, name: "v3", rows: 20_000, changed: Set(stride(from: 7, to: 20_000, by: 300)))
            let layouts = try [v1, v2, v3].map { try PackageLayout.read(path: $0) }
            let files = try [v1, v2, v3].map { try readFile($0) }
            var index = PatchIndex()
            var stored: [String: [UInt8]] = [:]
            for k in 1...2 {
                for e in layouts[k].entries {
                    guard let before = layouts[k - 1].entries.first(where: { $0.name == e.name }), before.sha256 != e.sha256, e.size >= 4096 else { continue }
                    let old = Array(files[k - 1][Int(before.dataOffset)..<Int(before.dataOffset + before.size)])
                    let new = Array(files[k][Int(e.dataOffset)..<Int(e.dataOffset + e.size)])
                    let p = try #require(try patch(old, new))
                    let entry = PatchIndex.Patch(name: e.name, from: before.sha256, fromSize: before.size, to: e.sha256, toSize: e.size, size: Int64(p.count), modified: Int64(k))
                    index.patches.append(entry)
                    stored[entry.path] = p
                }
            }
            let plan = DeltaPlan(new: layouts[2], old: layouts[0], patches: index)
            let blocks = DeltaPlan(new: layouts[2], old: layouts[0])
            var out: [UInt8] = []
            for run in plan.runs {
                switch run {
                case .copy(let offset, let length): out += files[0][Int(offset)..<Int(offset + length)]
                case .fetch(let offset, let length): out += files[2][Int(offset)..<Int(offset + length)]
                case .patch(let entry):
                    #expect(entry.chain.count == 2)
                    var bytes = Array(files[0][Int(entry.oldOffset)..<Int(entry.oldOffset + entry.oldSize)])
                    for p in entry.chain { bytes = try apply(try #require(stored[p.path]), bytes, size: Int(p.toSize)) }
                    out += bytes
                }
            }
            #expect(out == files[2])
            // 100 rows changed twice over: the patches cost a fraction of the changed pages.
            #expect(plan.runs.contains { if case .patch = $0 { return true } else { return false } })
            #expect(plan.fetchedBytes * 3 < blocks.fetchedBytes, "patches \(plan.fetchedBytes), blocks \(blocks.fetchedBytes)")
        }
    }
}
