import CSQLite

/// Fills a new, empty two-dimensional SQLite R-tree (`USING rtree(id, minx, maxx, miny, maxy)`)
/// with all its entries at once: the tree is packed sort-tile-recursive and its three shadow
/// tables (`_node`, `_rowid`, `_parent`) are written directly, as GDAL's GeoPackage driver does
/// after a load. Inserting a million entries one by one through the virtual table takes about
/// ten seconds of node splits and re-reads; packed, a fraction of one (docs/PERFORMANCE.md),
/// and the tree is tighter. SQLite's `rtreecheck()` accepts the result, and later inserts and
/// deletes through the virtual table work on it as on any other.
///
/// The node format is SQLite's (ext/rtree/rtree.c): a blob of the tree's node size, big-endian,
/// starting with the depth (meaningful in the root, node 1) and the cell count, then cells of
/// a 64-bit id (an entry's rowid in a leaf, a child's node number above) and four 32-bit floats
/// (min x, max x, min y, max y), each bound rounded outward as SQLite rounds them.
package struct SQLiteRTreeLoader {
    package struct Box {
        var minX: Float, maxX: Float, minY: Float, maxY: Float

        func union(_ o: Box) -> Box {
            Box(minX: min(minX, o.minX), maxX: max(maxX, o.maxX), minY: min(minY, o.minY), maxY: max(maxY, o.maxY))
        }
        var centerX: Float { minX / 2 + maxX / 2 }
        var centerY: Float { minY / 2 + maxY / 2 }
    }

    /// A cell of a node: an entry's rowid (leaves) or a child's index in the tier below.
    struct Cell {
        var id: Int64
        var box: Box
    }

    private var entries: [Cell] = []

    package init() {}

    package var count: Int { entries.count }

    /// Adds an entry; its bounds are stored as the R-tree stores them, as 32-bit floats that
    /// still contain the double-precision box.
    package mutating func add(id: Int64, minX: Double, maxX: Double, minY: Double, maxY: Double) {
        entries.append(Cell(id: id, box: Box(minX: Self.down(minX), maxX: Self.up(maxX), minY: Self.down(minY), maxY: Self.up(maxY))))
    }

    package static func down(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) > value ? f.nextDown : f
    }

    package static func up(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) < value ? f.nextUp : f
    }

    /// Writes every entry added into `table`, an R-tree just created in `database` and not yet
    /// read or written (its root is empty), inside the caller's transaction. The entries are
    /// sorted in place and given up: the loader is empty afterwards.
    package mutating func write(into database: SQLiteDatabase, table: String) throws(SQLiteError) {
        guard !entries.isEmpty else { return }
        let count = entries.count
        let q = SQLiteDatabase.quote
        // SQLite sizes nodes when the table is created (the page size less 64, at most 51
        // cells); the root's blob carries that size for every later reader.
        guard let nodeSize = try database.scalar("SELECT length(data) FROM \(q(table + "_node")) WHERE nodeno = 1")?.int64,
              nodeSize >= 4 + 2 * 24
        else { throw SQLiteError(kind: .sql, path: database.path, operation: "fill the R-tree \(table) of", message: "it is not a two-dimensional SQLite R-tree", code: SQLITE_ERROR) }
        let capacity = Int(nodeSize - 4) / 24

        // Tiers from the leaves up: each packs the cells of the tier below's nodes.
        var tiers: [(cells: [Cell], nodes: [Range<Int>])] = []
        var cells = entries
        entries = []
        while true {
            let nodes = Self.pack(&cells, capacity: capacity)
            tiers.append((cells, nodes))
            if nodes.count == 1 { break }
            cells = nodes.enumerated().map { index, range in
                Cell(id: Int64(index), box: cells[range].dropFirst().reduce(cells[range.lowerBound].box) { $0.union($1.box) })
            }
        }

        // Node numbers top-down: the root is 1, each tier's nodes follow the tier above's.
        var first = [Int64](repeating: 1, count: tiers.count)
        for t in stride(from: tiers.count - 2, through: 0, by: -1) {
            first[t] = first[t + 1] + Int64(tiers[t + 1].nodes.count)
        }
        let nodeInsert = try database.prepare("INSERT OR REPLACE INTO \(q(table + "_node")) VALUES (?, ?)")
        let parentRows = BatchedInsert(database: database, table: table + "_parent")
        var leafOf: [(rowid: Int64, node: Int64)] = []
        leafOf.reserveCapacity(count)
        var blob = [UInt8](repeating: 0, count: Int(nodeSize))
        for t in stride(from: tiers.count - 1, through: 0, by: -1) {
            let (cells, nodes) = tiers[t]
            for (j, range) in nodes.enumerated() {
                let number = first[t] + Int64(j)
                for i in blob.indices { blob[i] = 0 }
                if t == tiers.count - 1 { Self.put16(UInt16(tiers.count - 1), into: &blob, at: 0) }
                Self.put16(UInt16(range.count), into: &blob, at: 2)
                var at = 4
                for cell in cells[range] {
                    let id = t == 0 ? cell.id : first[t - 1] + cell.id
                    Self.put64(UInt64(bitPattern: id), into: &blob, at: at)
                    Self.put32(cell.box.minX.bitPattern, into: &blob, at: at + 8)
                    Self.put32(cell.box.maxX.bitPattern, into: &blob, at: at + 12)
                    Self.put32(cell.box.minY.bitPattern, into: &blob, at: at + 16)
                    Self.put32(cell.box.maxY.bitPattern, into: &blob, at: at + 20)
                    at += 24
                    if t == 0 { leafOf.append((cell.id, number)) } else { try parentRows.add(id, number) }
                }
                try nodeInsert.bind([.integer(number), .blob(blob)])
                try nodeInsert.run()
            }
        }
        try parentRows.finish()
        // Rowids in ascending order, so each row is appended to the table's last page.
        leafOf.sort { $0.rowid < $1.rowid }
        let rowidRows = BatchedInsert(database: database, table: table + "_rowid")
        for (rowid, node) in leafOf { try rowidRows.add(rowid, node) }
        try rowidRows.finish()
    }

    /// Sorts `cells` sort-tile-recursive (vertical slices by x centre, each by y centre) and
    /// returns the nodes as ranges of at most `capacity` cells.
    static func pack(_ cells: inout [Cell], capacity: Int) -> [Range<Int>] {
        let nodeCount = (cells.count + capacity - 1) / capacity
        let slices = Int(Double(nodeCount).squareRoot().rounded(.up))
        let perSlice = slices * capacity
        cells.sort { $0.box.centerX < $1.box.centerX }
        var nodes: [Range<Int>] = []
        nodes.reserveCapacity(nodeCount + slices)
        var start = 0
        while start < cells.count {
            let end = min(start + perSlice, cells.count)
            cells[start..<end].sort { $0.box.centerY < $1.box.centerY }
            for s in stride(from: start, to: end, by: capacity) { nodes.append(s..<min(s + capacity, end)) }
            start = end
        }
        return nodes
    }

    static func put16(_ v: UInt16, into b: inout [UInt8], at i: Int) {
        b[i] = UInt8(v >> 8)
        b[i + 1] = UInt8(v & 0xFF)
    }

    static func put32(_ v: UInt32, into b: inout [UInt8], at i: Int) {
        for k in 0..<4 { b[i + k] = UInt8((v >> (24 - 8 * UInt32(k))) & 0xFF) }
    }

    static func put64(_ v: UInt64, into b: inout [UInt8], at i: Int) {
        for k in 0..<8 { b[i + k] = UInt8((v >> (56 - 8 * UInt64(k))) & 0xFF) }
    }
}

/// Rows of two integers inserted a hundred to a statement: a shadow table's million rows
/// otherwise cost a statement each.
private final class BatchedInsert {
    private let database: SQLiteDatabase
    private let table: String
    private var values: [SQLiteValue] = []
    private var full: SQLiteStatement?
    private static let rows = 100

    init(database: SQLiteDatabase, table: String) {
        self.database = database
        self.table = table
    }

    func add(_ a: Int64, _ b: Int64) throws(SQLiteError) {
        values.append(.integer(a))
        values.append(.integer(b))
        if values.count == 2 * Self.rows {
            if full == nil { full = try statement(rows: Self.rows) }
            try full!.bind(values)
            try full!.run()
            values.removeAll(keepingCapacity: true)
        }
    }

    func finish() throws(SQLiteError) {
        guard !values.isEmpty else { return }
        let last = try statement(rows: values.count / 2)
        try last.bind(values)
        try last.run()
        values.removeAll()
    }

    private func statement(rows: Int) throws(SQLiteError) -> SQLiteStatement {
        try database.prepare("INSERT INTO \(SQLiteDatabase.quote(table)) VALUES " + Array(repeating: "(?, ?)", count: rows).joined(separator: ", "))
    }
}
