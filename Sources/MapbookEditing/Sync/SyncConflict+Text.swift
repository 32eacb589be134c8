import MapbookSupport

/// A package's kept conflicts, as `mapbook sync --conflicts` lists them.
public struct ConflictListing: Sendable {
    public var itemId: String
    public var title: String
    public var found: [(time: Int64, conflict: SyncConflict)]

    public init(itemId: String, title: String, found: [(time: Int64, conflict: SyncConflict)]) {
        self.itemId = itemId
        self.title = title
        self.found = found
    }

    /// Every conflict of `listings` as one JSON array, each with its item and time.
    public static func json(_ listings: [ConflictListing]) -> JSONValue {
        .array(listings.flatMap { listing in
            listing.found.map { item in
                var o = item.conflict.json.objectValue ?? JSONObject()
                o["itemId"] = .string(listing.itemId)
                o["time"] = .string(ISODate.format(seconds: item.time))
                return .object(o)
            }
        })
    }

    public var lines: [String] {
        ["\(title): \(found.isEmpty ? "no conflicts" : Format.count(found.count, "conflict"))"] + SyncConflict.tableLines(found.map(\.conflict))
    }
}

extension SyncConflict {
    /// The conflicts as a table: layer, globalid, column, base, theirs, ours, outcome.
    public static func tableLines(_ conflicts: [SyncConflict]) -> [String] {
        guard !conflicts.isEmpty else { return [] }
        let rows = [["LAYER", "GLOBALID", "COLUMN", "BASE", "THEIRS", "OURS", "OUTCOME"]] + conflicts.map { c in
            [c.layer, c.globalid, c.column, shown(c.base), shown(c.theirs), shown(c.ours), outcomeText(c.outcome)]
        }
        return Format.table(rows, indent: "  ")
    }

    private static func outcomeText(_ outcome: SyncConflict.Outcome) -> String {
        switch outcome {
        case .ours: return "ours kept (last sync wins)"
        case .manual: return "theirs kept, choose by editing"
        case .deleted: return "deleted (delete wins)"
        }
    }

    private static func shown(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "-"
        case .integer(let i): return String(i)
        case .real(let d): return JSONWriter.formatNumber(d)
        case .text(let s): return s
        case .blob(let b): return "(geometry, \(b.count) bytes)"
        }
    }
}
