import Foundation
import MapbookData
import MapbookEditing
import MapbookPackage
import MapbookPackager
import MapbookSupport
import MapbookTestSupport
import Testing

/// Two devices and the portal's copy, synchronised without a portal in between (the portal's
/// route only carries these messages): every cell of the conflict rules in both orders, fid
/// collisions, resends, refusals.
@Suite struct SyncTests {
    /// The trees package, the portal's copy of it and two devices' working copies.
    struct World {
        let package: MobileMapPackage
        let server: AuthoritativeCopy
        let a: WorkingCopy
        let b: WorkingCopy
        let dir: String
    }

    func world(_ dir: String, conflicts: String? = nil, related: Bool = false, portland: Bool = false) throws -> World {
        var project = try EditableTrees.write(in: dir, conflicts: conflicts, related: related)
        if portland {
            // The Portland street trees (676), with the policy asked for.
            project = try PortlandSample.write(in: dir + "/portland")
            let text = try String(contentsOfFile: project, encoding: .utf8)
            try text.replacingOccurrences(of: "conflicts: last_sync_wins", with: "conflicts: \(conflicts ?? "last_sync_wins")").write(toFile: project, atomically: true, encoding: .utf8)
        }
        _ = try Packager.build(try Project.load(path: project), output: dir + "/trees.mmpk", timestamp: 1_700_000_000)
        let package = try MobileMapPackage(path: dir + "/trees.mmpk")
        #expect(try AuthoritativeCopy.make(from: package, at: dir + "/portal.gpkg"))
        for device in ["a", "b"] { try FileManager.default.createDirectory(atPath: dir + "/" + device, withIntermediateDirectories: true) }
        return World(
            package: package, server: try AuthoritativeCopy(path: dir + "/portal.gpkg"),
            a: try WorkingCopy(package: package, folder: dir + "/a"), b: try WorkingCopy(package: package, folder: dir + "/b"), dir: dir)
    }

    /// One sync, each message through its JSON text as the portal route carries it, and
    /// attachments uploaded and downloaded by hash as `mapbook sync` does.
    @discardableResult
    func sync(_ copy: WorkingCopy, _ server: AuthoritativeCopy, user: String, now: Int64 = 1_800_000_000, upload: Bool = true) throws -> SyncResponse {
        let request = try SyncRequest(json: try JSONParser.parse(JSONWriter.string(try copy.syncRequest().json)), source: "request")
        if upload {
            for (sha, bytes) in try copy.attachmentsToSend(request) where !server.missingAttachments([sha]).isEmpty {
                let staged = server.path + ".upload"
                try writeFile(staged, bytes)
                #expect(try server.storeAttachment(staged) == sha)
            }
        }
        let answer = try server.synchronise(request, user: user, now: now)
        let response = try SyncResponse(json: try JSONParser.parse(JSONWriter.string(answer.json)), source: "response")
        #expect(!JSONWriter.string(answer.json).contains("base64\":\"/9j"), "attachment bytes travel by hash, never in answers")
        let fetch = try copy.attachmentsToFetch(response)
        try copy.complete(response, now: now) { sha in
            guard fetch.contains(sha), let path = server.attachmentPath(sha) else { return nil }
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        return response
    }

    /// Every tree, keyed by globalid, with every column but the geometry's bytes as text.
    func trees(_ path: String) throws -> [String: [String]] {
        var byID: [String: [String]] = [:]
        for row in try SQLiteDatabase(readOnlyPath: path).query("SELECT globalid, fid, common, dbh, condition, last_edited_user, hex(geom) FROM trees") {
            byID[row[0].text ?? ""] = row.map { "\($0)" }
        }
        return byID
    }

    @Test func twoDevicesEndWithTheSameDataAndCollidingFidsAreRenumbered() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir)
            let point = { (x: Double) in Geometry(.point(Position(x: x, y: 45.5)), hasZ: false, hasM: false) }
            let fromA = try w.a.add(layer: "trees", geometry: point(-122.64), values: [("common", "maple")], user: "ana", now: 1_800_000_000)
            let fromB = try w.b.add(layer: "trees", geometry: point(-122.65), values: [("common", "birch")], user: "ben", now: 1_800_000_000)
            // Both took the next fid: the same one.
            #expect(fromA.fid == 4 && fromB.fid == 4)
            _ = try w.a.update(layer: "trees", fid: 1, values: [("condition", "Fair")], user: "ana", now: 1_800_000_010)
            _ = try w.b.update(layer: "trees", fid: 1, values: [("dbh", "11")], user: "ben", now: 1_800_000_020)
            _ = try w.a.delete(layer: "trees", fid: 3, now: 1_800_000_030)
            _ = try w.b.update(layer: "trees", fid: 2, values: [("common", "elm (American)")], user: "ben", now: 1_800_000_040)

            let first = try sync(w.a, w.server, user: "ana")
            let second = try sync(w.b, w.server, user: "ben")
            let third = try sync(w.a, w.server, user: "ana")
            #expect(first.conflicts.isEmpty && second.conflicts.isEmpty && third.conflicts.isEmpty, "\(second.conflicts)")
            #expect(try w.a.pending().isEmpty && w.b.pending().isEmpty)

            let portal = try trees(dir + "/portal.gpkg")
            #expect(try trees(w.a.dataPath) == portal)
            #expect(try trees(w.b.dataPath) == portal)
            // Four trees: 1 and 2 edited, 3 deleted, two added.
            #expect(portal.count == 4)
            let byFid = Dictionary(uniqueKeysWithValues: portal.values.map { ($0[1], $0) })
            #expect(byFid["integer(1)"]?[3] == "real(11.0)" && byFid["integer(1)"]?[4] == "text(\"Fair\")")
            #expect(byFid["integer(2)"]?[2] == "text(\"elm (American)\")")
            // A's tree kept fid 4 (it synchronised first); B's moved to 5, on B too.
            #expect(portal[fromA.globalid]?[1] == "integer(4)" && portal[fromB.globalid]?[1] == "integer(5)")
            // The R-tree followed the renumbering: B finds its tree by place under its new fid.
            let hits = try SQLiteDatabase(readOnlyPath: w.b.dataPath).query("SELECT id FROM rtree_trees_geom WHERE id = 5")
            #expect(hits.count == 1)
        }
    }

    enum Edit: CustomStringConvertible {
        case set(String, String)
        case delete
        var description: String {
            switch self {
            case .set(let f, let v): return "\(f)=\(v)"
            case .delete: return "delete"
            }
        }
    }

    /// Every cell of the conflict rules (docs/FORMAT.md "Synchronisation"), on tree 1: what the
    /// first and the second device to synchronise did, the policy, the tree after both (nil:
    /// deleted; a nil field: as it was) and the conflicts reported to the second, as (column,
    /// base, theirs, ours, outcome), `BASE` standing for the value both started from.
    struct Cell {
        var first: Edit
        var second: Edit
        var policy: String?
        var after: (condition: String?, dbh: Double?)?
        var conflicts: [String]
    }

    static let cells: [Cell] = [
        // The same new value on both sides: no conflict.
        Cell(first: .set("condition", "Poor"), second: .set("condition", "Poor"), policy: nil, after: ("Poor", nil), conflicts: []),
        // Different values: the last to synchronise wins.
        Cell(first: .set("condition", "Poor"), second: .set("condition", "Dead"), policy: nil, after: ("Dead", nil),
             conflicts: ["condition BASE Poor Dead ours"]),
        // Different values, manual: the portal's kept, both reported.
        Cell(first: .set("condition", "Poor"), second: .set("condition", "Dead"), policy: "manual", after: ("Poor", nil),
             conflicts: ["condition BASE Poor Dead manual"]),
        // The same value under manual is still no conflict.
        Cell(first: .set("condition", "Dead"), second: .set("condition", "Dead"), policy: "manual", after: ("Dead", nil), conflicts: []),
        // Different fields: both kept.
        Cell(first: .set("condition", "Poor"), second: .set("dbh", "20"), policy: nil, after: ("Poor", 20), conflicts: []),
        Cell(first: .set("condition", "Poor"), second: .set("dbh", "20"), policy: "manual", after: ("Poor", 20), conflicts: []),
        // An update, then a delete: the delete wins, the update is reported.
        Cell(first: .set("condition", "Poor"), second: .delete, policy: nil, after: nil, conflicts: ["condition BASE Poor null deleted"]),
        Cell(first: .set("condition", "Poor"), second: .delete, policy: "manual", after: nil, conflicts: ["condition BASE Poor null deleted"]),
        // A delete, then an update: the delete wins, the update is reported.
        Cell(first: .delete, second: .set("condition", "Poor"), policy: nil, after: nil, conflicts: ["condition BASE null Poor deleted"]),
        Cell(first: .delete, second: .set("dbh", "20"), policy: "manual", after: nil, conflicts: ["dbh BASE null 20 deleted"]),
        // Both delete: no conflict.
        Cell(first: .delete, second: .delete, policy: nil, after: nil, conflicts: []),
    ]

    @Test(arguments: Array(cells.indices), [false, true])
    func conflictRule(cell index: Int, bFirst: Bool) throws {
        try check(Self.cells[index], bFirst: bFirst, portland: false)
    }

    /// The same cells on the Portland street trees.
    @Test(Fixtures.required, arguments: Array(cells.indices), [false, true])
    func conflictRuleOnPortland(cell index: Int, bFirst: Bool) throws {
        try check(Self.cells[index], bFirst: bFirst, portland: true)
    }

    func check(_ cell: Cell, bFirst: Bool, portland: Bool) throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir, conflicts: cell.policy, portland: portland)
            let base = try #require(try SQLiteDatabase(readOnlyPath: dir + "/portal.gpkg").query("SELECT condition, dbh FROM trees WHERE fid = 1").first)
            let (first, second) = bFirst ? (w.b, w.a) : (w.a, w.b)
            for (copy, edit, user) in [(first, cell.first, "first"), (second, cell.second, "second")] {
                switch edit {
                case .set(let field, let value): _ = try copy.update(layer: "trees", fid: 1, values: [(field, value)], user: user, now: 1_800_000_000)
                case .delete: _ = try copy.delete(layer: "trees", fid: 1, now: 1_800_000_000)
                }
            }
            let firstAnswer = try sync(first, w.server, user: "first")
            let secondAnswer = try sync(second, w.server, user: "second")
            try sync(first, w.server, user: "first")
            #expect(firstAnswer.conflicts.isEmpty)
            let reported = secondAnswer.conflicts.map { c in
                [c.column, Self.shown(c.base), Self.shown(c.theirs), Self.shown(c.ours), c.outcome.rawValue].joined(separator: " ")
            }
            let expected = cell.conflicts.map { line in
                line.replacingOccurrences(of: "BASE", with: Self.shown(line.hasPrefix("dbh") ? base[1] : base[0]))
            }
            #expect(reported == expected, "\(cell.first) then \(cell.second)")
            // Kept in the second device's table too.
            #expect(try second.conflicts().map(\.conflict) == secondAnswer.conflicts)

            let portal = try trees(dir + "/portal.gpkg")
            #expect(try trees(w.a.dataPath) == portal && trees(w.b.dataPath) == portal, "\(cell.first) then \(cell.second)")
            let tree = try SQLiteDatabase(readOnlyPath: dir + "/portal.gpkg").query("SELECT condition, dbh FROM trees WHERE fid = 1").first
            if let after = cell.after {
                let condition = after.condition.map(SQLiteValue.text) ?? base[0], dbh = after.dbh ?? base[1].double
                #expect(tree?[0] == condition && tree?[1].double == dbh, "\(cell.first) then \(cell.second): \(String(describing: tree))")
            } else {
                #expect(tree == nil, "\(cell.first) then \(cell.second): \(String(describing: tree))")
            }
        }
    }

    static func shown(_ v: SQLiteValue) -> String {
        switch v {
        case .null: return "null"
        case .integer(let i): return String(i)
        case .real(let d): return d == d.rounded() ? String(Int(d)) : String(d)
        case .text(let s): return s
        case .blob(let b): return "<\(b.count) bytes>"
        }
    }

    /// An answer lost on the way: the device sends the same changeset again, the portal
    /// applies it once and answers as before.
    @Test func aChangesetSentTwiceIsAppliedOnce() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir)
            let added = try w.a.add(layer: "trees", geometry: Geometry(.point(Position(x: -122.61, y: 45.51)), hasZ: false, hasM: false), values: [("common", "yew")], user: "ana", now: 1_800_000_000)
            _ = try w.a.update(layer: "trees", fid: 1, values: [("condition", "Dead")], user: "ana", now: 1_800_000_000)
            _ = try w.b.update(layer: "trees", fid: 1, values: [("condition", "Poor")], user: "ben", now: 1_800_000_000)
            try sync(w.b, w.server, user: "ben")
            let request = try w.a.syncRequest()
            let lost = try w.server.synchronise(request, user: "ana", now: 1_800_000_100)
            #expect(lost.applied && lost.conflicts.count == 1)
            // Until the answer is applied the request stays the same, and edits wait.
            #expect(try w.a.syncRequest() == request)
            #expect(throws: SyncError.self) { try w.a.delete(layer: "trees", fid: 2, now: 1_800_000_000) }
            let again = try w.server.synchronise(request, user: "ana", now: 1_800_000_200)
            #expect(!again.applied && again.generation == lost.generation && again.conflicts == lost.conflicts && again.rows == lost.rows)
            let portal = try SQLiteDatabase(readOnlyPath: dir + "/portal.gpkg")
            #expect(try portal.scalar("SELECT count(*) FROM trees WHERE globalid = ?", [.text(added.globalid)])?.int64 == 1)
            #expect(try portal.scalar("SELECT count(*) FROM mapbook_sync_log")?.int64 == 2)
            try w.a.complete(again, now: 1_800_000_200)
            #expect(try w.a.pending().isEmpty)
            #expect(try trees(w.a.dataPath) == trees(dir + "/portal.gpkg"))
            // Editing works again, and the next sync is a new changeset.
            _ = try w.a.delete(layer: "trees", fid: 2, now: 1_800_000_300)
            #expect(try w.a.syncRequest().changesetId != request.changesetId)
        }
    }

    /// A device whose layer differs from the portal's copy is refused, told what differs,
    /// and nothing is applied.
    @Test func differentColumnsAreRefusedSayingWhich() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir)
            _ = try w.a.update(layer: "trees", fid: 1, values: [("condition", "Dead")], user: "ana", now: 1_800_000_000)
            let db = try SQLiteDatabase(writablePath: dir + "/portal.gpkg", create: false)
            // The copy has a column the device has not, before its last: not a republish's.
            try db.execute("ALTER TABLE trees RENAME COLUMN dbh TO trunk")
            try db.close()
            let server = try AuthoritativeCopy(path: dir + "/portal.gpkg")
            let request = try w.a.syncRequest()
            do {
                _ = try server.synchronise(request, user: "ana", now: 1_800_000_000)
                Issue.record("a device without the trunk column synchronised")
            } catch let error as SyncError {
                #expect(error.kind == .schemaMismatch && error.message.contains("'trunk REAL'"), "\(error)")
            }
            #expect(try server.generation() == 0)
            #expect(try SQLiteDatabase(readOnlyPath: dir + "/portal.gpkg").scalar("SELECT condition FROM trees WHERE fid = 1") == .text("Good"))
        }
    }

    /// A republish added a field at the end: a device from before it still sends its edits
    /// (inserts included, the new field null) and takes back what changed, by column name.
    @Test func aDeviceFromBeforeAnAddedFieldStillSynchronises() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir)
            _ = try w.a.update(layer: "trees", fid: 1, values: [("condition", "Dead")], user: "ana", now: 1_800_000_000)
            let added = try w.a.add(layer: "trees", geometry: Geometry(.point(Position(x: -122.63, y: 45.53))), values: [("common", "yew")], user: "ana", now: 1_800_000_000)
            let db = try SQLiteDatabase(writablePath: dir + "/portal.gpkg", create: false)
            try GeoPackageFunctions.register(on: db)
            try db.execute("ALTER TABLE trees ADD COLUMN height REAL; UPDATE trees SET height = 12 WHERE fid = 2")
            try db.close()
            let server = try AuthoritativeCopy(path: dir + "/portal.gpkg")
            let response = try sync(w.a, server, user: "ana")
            #expect(response.applied && response.conflicts.isEmpty)
            let portal = try SQLiteDatabase(readOnlyPath: dir + "/portal.gpkg")
            #expect(try portal.scalar("SELECT condition FROM trees WHERE fid = 1") == .text("Dead"))
            #expect(try portal.scalar("SELECT height FROM trees WHERE globalid = ?", [.text(added.globalid)]) == .null)
            #expect(try w.a.pending().isEmpty)
        }
    }

    /// The portal's copy exported as a package's data: without the sync's tables, and a
    /// device starting from it asks only for what came after.
    @Test func anExportedCopyStartsDevicesAtItsGeneration() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir)
            _ = try w.a.update(layer: "trees", fid: 1, values: [("condition", "Dead")], user: "ana", now: 1_800_000_000)
            try sync(w.a, w.server, user: "ana")
            try w.server.export(to: dir + "/exported.gpkg")
            let exported = try SQLiteDatabase(readOnlyPath: dir + "/exported.gpkg")
            #expect(try !exported.tableExists("mapbook_sync_log") && exported.scalar("SELECT generation FROM mapbook_sync_base") == .integer(1))
            #expect(try exported.scalar("SELECT condition FROM trees WHERE fid = 1") == .text("Dead"))
            #expect(try trees(dir + "/exported.gpkg") == trees(dir + "/portal.gpkg"))
        }
    }

    /// A package published from the portal's copy at one generation, opened by a device that
    /// synchronised further: the copy keeps what the device received; opened by one that had
    /// not, the copy is the new package's data.
    @Test func anUpdateFromTheCopyKeepsWhatTheDeviceReceivedSince() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir)
            _ = try w.a.update(layer: "trees", fid: 1, values: [("condition", "Dead")], user: "ana", now: 1_800_000_000)
            try sync(w.a, w.server, user: "ana")
            try w.server.export(to: dir + "/generation1.gpkg")
            let entry = try #require(w.package.archive.entries.first { $0.name.hasSuffix("/data.gpkg") })
            _ = try PackageRewriter.write(w.package, replacing: [entry.name: .file(path: dir + "/generation1.gpkg")], timestamp: 1_800_000_000, to: dir + "/v2.mmpk")
            let v2 = try MobileMapPackage(path: dir + "/v2.mmpk")
            // A synchronises once more (generation 2), then updates to the version of generation 1.
            _ = try w.a.update(layer: "trees", fid: 2, values: [("condition", "Poor")], user: "ana", now: 1_800_000_000)
            try sync(w.a, w.server, user: "ana")
            let a2 = try WorkingCopy(package: v2, folder: dir + "/a")
            #expect(try a2.syncState().generation == 2)
            #expect(try trees(a2.dataPath) == trees(dir + "/portal.gpkg"))
            // B never synchronised: its copy is the new data, at generation 1, and its next sync
            // brings generation 2.
            let b2 = try WorkingCopy(package: v2, folder: dir + "/b")
            #expect(try b2.syncState().generation == 1)
            #expect(try SQLiteDatabase(readOnlyPath: b2.dataPath).scalar("SELECT condition FROM trees WHERE fid = 2") == .text("Fair"))
            let answer = try sync(b2, w.server, user: "ben")
            #expect(answer.rows.count == 1)
            #expect(try trees(b2.dataPath) == trees(dir + "/portal.gpkg"))
        }
    }

    /// An inspection and a photo added on one device reach the other through the portal; the
    /// photo's bytes go once, by hash, and a sync whose photo was not uploaded is refused
    /// with nothing applied. Deleting the tree takes its photo with it.
    @Test func relatedRecordsAndAttachmentsReachTheOtherDevice() throws {
        try withTemporaryDirectory { dir in
            let w = try world(dir, related: true)
            let photo: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let inspection = try w.a.relate(layer: "trees", fid: 1, related: "inspections", values: [("inspected", "2026-11-26"), ("result", "prune")], user: "ana", now: 1_800_000_000)
            let attached = try w.a.attach(layer: "trees", fid: 1, bytes: photo, name: "bark.jpg", contentType: "image/jpeg", now: 1_800_000_000)
            // The changeset holds the photo's hash, not its bytes.
            #expect(try w.a.pending().last?.changeset.count ?? .max < 1000)
            // Not uploaded: refused, nothing applied.
            do {
                try sync(w.a, w.server, user: "ana", upload: false)
                Issue.record("a sync without its attachment was applied")
            } catch let error as SyncError {
                #expect(error.kind == .missingAttachment, "\(error)")
            }
            #expect(try w.server.generation() == 0)
            try sync(w.a, w.server, user: "ana")
            try sync(w.b, w.server, user: "ben")
            let b = try SQLiteDatabase(readOnlyPath: w.b.dataPath)
            #expect(try b.scalar("SELECT result FROM inspections WHERE globalid = ?", [.text(inspection.globalid)]) == .text("Prune"))
            #expect(try b.scalar("SELECT data FROM trees_attachments WHERE globalid = ?", [.text(attached.globalid)]) == .blob(photo))
            // The mapping tables followed on B (the triggers), so pop-ups find them.
            #expect(try b.scalar("SELECT count(*) FROM trees_inspections WHERE base_id = 1")?.int64 == 1)
            #expect(try b.scalar("SELECT count(*) FROM trees_attachments_mapping WHERE base_id = 1")?.int64 == 1)
            // Too large for the layer: refused on the device.
            #expect(throws: EditError.self) { try w.b.attach(layer: "trees", fid: 2, bytes: [UInt8](repeating: 1, count: 2 << 20), name: "big.jpg", contentType: "image/jpeg", now: 1_800_000_000) }
            // B deletes the tree: its photo goes too, everywhere; the inspection stays.
            _ = try w.b.delete(layer: "trees", fid: 1, now: 1_800_000_100)
            try sync(w.b, w.server, user: "ben")
            try sync(w.a, w.server, user: "ana")
            for path in [w.a.dataPath, dir + "/portal.gpkg"] {
                let db = try SQLiteDatabase(readOnlyPath: path)
                #expect(try db.scalar("SELECT count(*) FROM trees_attachments")?.int64 == 0, "\(path)")
                #expect(try db.scalar("SELECT count(*) FROM inspections")?.int64 == 1, "\(path)")
            }
        }
    }
}
