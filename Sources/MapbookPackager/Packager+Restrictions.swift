import MapbookData
import MapbookRouting

extension Packager.Context {
    /// The rows of a network's restrictions table: (line, from id, to id). A table that
    /// cannot be read, lacks a column, or has a row without both ids stops the build.
    func readRestrictions(_ spec: Project.RestrictionsSpec) throws(ProjectError) -> [(line: Int, from: String, to: String)] {
        let path = resolve(spec.file)
        let table: CSVTable
        do { table = try CSVTable(path: path) } catch {
            throw self.error(.data(error.kind), spec.key, spec.line, error.description)
        }
        try checkColumn(spec.fromField, "restrictions' from field", of: spec.file, columns: table.columns, key: spec.key + ".from", line: spec.line)
        try checkColumn(spec.toField, "restrictions' to field", of: spec.file, columns: table.columns, key: spec.key + ".to", line: spec.line)
        let from = table.columns.firstIndex(of: spec.fromField)!, to = table.columns.firstIndex(of: spec.toField)!
        var rows: [(line: Int, from: String, to: String)] = []
        var incomplete: [Int] = []
        for row in table.rows {
            let a = from < row.cells.count ? row.cells[from] : "", b = to < row.cells.count ? row.cells[to] : ""
            if a.isEmpty || b.isEmpty { incomplete.append(row.line) } else { rows.append((row.line, a, b)) }
        }
        guard incomplete.isEmpty else {
            throw error(.invalidValue, spec.key, spec.line, "\(spec.file): \(incomplete.count) row\(incomplete.count == 1 ? "" : "s") without both a '\(spec.fromField)' and a '\(spec.toField)' street (line\(incomplete.count == 1 ? "" : "s") \(incomplete.prefix(10).map(String.init).joined(separator: ", ")))")
        }
        return rows
    }

    /// Forbids the table's turns on `network`. Ids no street has, and streets that do not
    /// meet, are reported with their lines and stop the build: a restriction that does
    /// nothing is a mistake a user wants to hear about.
    func forbidTurns(_ network: inout StreetNetwork, _ spec: Project.RestrictionsSpec, _ rows: [(line: Int, from: String, to: String)], featuresById: [String: [Int64]], layer: String) throws(ProjectError) {
        let idName = spec.idField ?? "fid"
        var unknown: [String: [Int]] = [:]
        var turns: [StreetNetwork.LineTurn] = []
        var lineOf: [Int] = []
        for row in rows {
            guard let from = featuresById[row.from], let to = featuresById[row.to] else {
                for id in [row.from, row.to] where featuresById[id] == nil { unknown[id, default: []].append(row.line) }
                continue
            }
            // An id may name several features (a street in parts): every pair of them.
            for a in from { for b in to { turns.append(.init(from: a, to: b)); lineOf.append(row.line) } }
        }
        if !unknown.isEmpty {
            let detail = unknown.sorted { $0.value[0] < $1.value[0] }.prefix(10).map { "'\($0.key)' (line\($0.value.count == 1 ? "" : "s") \($0.value.prefix(5).map(String.init).joined(separator: ", ")))" }
            throw error(.invalidValue, spec.key, spec.line, "\(spec.file) names \(unknown.count) street\(unknown.count == 1 ? "" : "s") \(layer) has no \(idName) for: \(detail.joined(separator: ", "))")
        }
        let counts = network.forbid(turns)
        // A row does something if any of its pairs meet.
        var meets: [Int: Bool] = [:]
        for (i, line) in lineOf.enumerated() { meets[line] = (meets[line] ?? false) || counts[i] > 0 }
        let apart = rows.filter { meets[$0.line] == false }
        guard apart.isEmpty else {
            throw error(.invalidValue, spec.key, spec.line, "\(spec.file): \(apart.count) restriction\(apart.count == 1 ? "" : "s") name streets that do not meet: \(apart.prefix(10).map { "line \($0.line) (\($0.from) to \($0.to))" }.joined(separator: ", "))")
        }
    }
}
