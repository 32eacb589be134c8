// Records, applies and merges a changeset of 10,000 mixed edits (3,334 inserts, 3,333
// updates, 3,333 deletes) on a layer of 100,000 features, as tools/bench/changeset-vs-geodiff.sh
// runs it beside pygeodiff. Usage: changeset-edits BASE.gpkg LAYER WORKDIR [EDITS]
// Writes WORKDIR/ours.gpkg (the edited copy, which pygeodiff diffs against BASE) and
// WORKDIR/ours.changeset; prints one JSON object of timings in milliseconds.
import Foundation
import MapbookData
import MapbookEditing
import MapbookSupport

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: changeset-edits BASE.gpkg LAYER WORKDIR [EDITS]\n".utf8))
    exit(64)
}
let base = arguments[1], layer = arguments[2], work = arguments[3]
let edits = arguments.count > 4 ? Int(arguments[4]) ?? 10_000 : 10_000
let q = SQLiteDatabase.quote

func copy(_ from: String, _ to: String) throws {
    try? FileManager.default.removeItem(atPath: to)
    try FileManager.default.copyItem(atPath: from, toPath: to)
}
func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

do {
    try copy(base, work + "/ours.gpkg")
    let db = try SQLiteDatabase(writablePath: work + "/ours.gpkg", create: false)
    try GeoPackageFunctions.register(on: db)
    let fids = try db.query("SELECT fid FROM \(q(layer)) ORDER BY fid").compactMap { $0[0].int64 }
    var rng = SystemRandomNumberGenerator()
    // A fixed choice of features: every 10th for updates, every 10th + 5 for deletes.
    let updates = stride(from: 0, to: fids.count, by: max(1, fids.count / (edits / 3))).prefix(edits / 3).map { fids[$0] }
    let deletes = stride(from: 5, to: fids.count, by: max(1, fids.count / (edits / 3))).prefix(edits / 3).map { fids[$0] }
    let inserts = edits - updates.count - deletes.count
    let sample = try db.query("SELECT geom FROM \(q(layer)) WHERE fid = ?", [.integer(fids[0])]).first?[0] ?? .null
    var changeset: [UInt8] = []
    var globalids: [Int64: String] = [:]
    for row in try db.query("SELECT fid, globalid FROM \(q(layer))") { if let f = row[0].int64, let g = row[1].text { globalids[f] = g } }

    // The same edits without recording them: what recording adds is the difference.
    func edit(_ db: SQLiteDatabase, recording: Bool) throws -> [UInt8] {
        try db.execute("BEGIN IMMEDIATE")
        let session = recording ? try SQLiteSession(db, tables: [layer]) : nil
        let update = try db.prepare("UPDATE \(q(layer)) SET value = ?, kind = 'edited' WHERE fid = ?")
        for fid in updates {
            try update.bind([.real(Double(fid % 997)), .integer(fid)])
            try update.run()
            update.reset()
        }
        let delete = try db.prepare("DELETE FROM \(q(layer)) WHERE fid = ?")
        for fid in deletes {
            try delete.bind([.integer(fid)])
            try delete.run()
            delete.reset()
        }
        let insert = try db.prepare("INSERT INTO \(q(layer)) (geom, name, kind, value, globalid) VALUES (?, ?, 'new', ?, ?)")
        for i in 0..<inserts {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try insert.bind([sample, .text("New \(i)"), .real(Double(i)), .text(EditSchema.format(uuidBytes: bytes, version: 4))])
            try insert.run()
            insert.reset()
        }
        let recorded = try session?.changeset() ?? []
        try db.execute("COMMIT")
        return recorded
    }
    let record = try milliseconds { changeset = try edit(db, recording: true) }
    try db.close()
    try copy(base, work + "/plain.gpkg")
    let plain = try SQLiteDatabase(writablePath: work + "/plain.gpkg", create: false)
    try GeoPackageFunctions.register(on: plain)
    let editsOnly = try milliseconds { _ = try edit(plain, recording: false) }
    try plain.close()
    try Data(changeset).write(to: URL(fileURLWithPath: work + "/ours.changeset"))

    // Applying it to another copy of the base, all or nothing.
    try copy(base, work + "/applied.gpkg")
    let target = try SQLiteDatabase(writablePath: work + "/applied.gpkg", create: false)
    try GeoPackageFunctions.register(on: target)
    let apply = try milliseconds { try target.apply(changeset: changeset) { _, _ in .abort } }
    let same = try target.scalar("SELECT count(*), total(value) FROM \(q(layer))")
    try target.close()
    let expected = try SQLiteDatabase(readOnlyPath: work + "/ours.gpkg").scalar("SELECT count(*), total(value) FROM \(q(layer))")

    // The portal's merge of the same changeset: column by column against its copy.
    try copy(base, work + "/portal.gpkg")
    let portal = try AuthoritativeCopy(path: work + "/portal.gpkg")
    let shape = try SQLiteDatabase(readOnlyPath: base)
    let schema = try EditSchema.read(shape, table: layer)!.json
    let request = SyncRequest(
        replica: "bench", changesetId: UUID().uuidString, since: 0, layers: [layer: try LayerShape(shape, table: layer, schema: schema)],
        changeset: changeset, globalids: [layer: Dictionary(uniqueKeysWithValues: updates.map { ($0, globalids[$0]!) })])
    var merged = 0
    let merge = try milliseconds { merged = try portal.synchronise(request, user: "bench", now: 0).rows.count }

    // What a device sends: each edit recorded as its own changeset (as `mapbook edit` does,
    // here in one transaction), then the lot combined into one.
    try copy(base, work + "/per-edit.gpkg")
    let single = try SQLiteDatabase(writablePath: work + "/per-edit.gpkg", create: false)
    try GeoPackageFunctions.register(on: single)
    var parts: [[UInt8]] = []
    let recordEach = try milliseconds {
        try single.execute("BEGIN IMMEDIATE")
        for fid in updates {
            let session = try SQLiteSession(single, tables: [layer])
            try single.query("UPDATE \(q(layer)) SET value = ?, kind = 'edited' WHERE fid = ?", [.real(Double(fid % 997)), .integer(fid)])
            parts.append(try session.changeset())
        }
        for fid in deletes {
            let session = try SQLiteSession(single, tables: [layer])
            try single.query("DELETE FROM \(q(layer)) WHERE fid = ?", [.integer(fid)])
            parts.append(try session.changeset())
        }
        try single.execute("COMMIT")
    }
    try single.close()
    var combined: [UInt8] = []
    let combine = try milliseconds { combined = try SQLiteChangeset.combine(parts, source: "bench") }

    print("""
        {"features": \(fids.count), "edits": \(updates.count + deletes.count + inserts), "inserts": \(inserts), "updates": \(updates.count), "deletes": \(deletes.count), \
        "changesetBytes": \(changeset.count), "recordMs": \(String(format: "%.1f", record)), "editsOnlyMs": \(String(format: "%.1f", editsOnly)), "applyMs": \(String(format: "%.1f", apply)), \
        "portalMergeMs": \(String(format: "%.1f", merge)), "portalRows": \(merged), \
        "recordEachMs": \(String(format: "%.1f", recordEach)), "combineMs": \(String(format: "%.1f", combine)), "combined": \(parts.count), "combinedBytes": \(combined.count), \
        "appliedMatches": \(same == expected)}
        """)
} catch {
    FileHandle.standardError.write(Data("changeset-edits: \(error)\n".utf8))
    exit(1)
}
