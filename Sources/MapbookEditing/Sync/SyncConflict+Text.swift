import MapbookSupport

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
