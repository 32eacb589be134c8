import MapbookSupport

/// An Esri mobile geodatabase (`.geodatabase`) read through plain SQLite, as far as its format
/// is public: the tables named in `GDB_Items` and `GDB_ServiceItems`; `FeatureTable`
/// (MapbookData) reads their rows.
///
/// Geometry (ST_Geometry blobs) and Esri's virtual tables (`VSRS`, `VTSpindex`), whose SQLite
/// modules only Esri's runtime has, are not read.
public struct MobileGeodatabase: Sendable {
    public struct Table: Sendable, Hashable {
        /// The SQLite table name (`USStates`).
        public var name: String
        /// The service layer id (`itemId` in `.mmap` paths), when the table is a service item.
        public var itemId: Int?
        /// The layer's name for people (`US-States`), from the service item's JSON.
        public var layerName: String?
        /// "Feature Class" or "Table".
        public var kind: String
        /// `esriGeometryPolygon`, ... for feature classes.
        public var geometryType: String?
    }

    public var path: String
    public var tables: [Table]

    // GDB_ItemTypes UUIDs (stable across Esri releases).
    static let featureClassType = "{70737809-852C-4A03-9E22-2CECEA5B9BFA}"
    static let tableType = "{CD06BC3B-789D-4C51-AAFA-A467912B8965}"

    /// Reads the table list from an open database.
    public init(database: SQLiteDatabase) throws(PackageFormatError) {
        path = database.path
        do {
            guard try database.tableExists("GDB_Items") else {
                throw PackageFormatError(kind: .wrongFormat, path: path, message: "no GDB_Items table: not an Esri mobile geodatabase")
            }
            var tables: [String: Table] = [:]
            var order: [String] = []
            for row in try database.query("SELECT Name, Type FROM GDB_Items WHERE Type IN (?, ?)", [.text(Self.featureClassType), .text(Self.tableType)]) {
                guard var name = row[0].text else { continue }
                if name.hasPrefix("main.") { name = String(name.dropFirst(5)) }
                let kind = row[1].text == Self.featureClassType ? "Feature Class" : "Table"
                if tables[name] == nil { order.append(name) }
                tables[name] = Table(name: name, itemId: nil, layerName: nil, kind: kind, geometryType: nil)
            }
            if try database.tableExists("GDB_ServiceItems") {
                for row in try database.query("SELECT DatasetName, ItemId, ItemInfo FROM GDB_ServiceItems") {
                    guard let name = row[0].text else { continue }
                    var table = tables[name] ?? Table(name: name, itemId: nil, layerName: nil, kind: "Table", geometryType: nil)
                    if tables[name] == nil { order.append(name) }
                    table.itemId = row[1].int64.map { Int($0) }
                    if let info = row[2].text, let json = try? JSONParser.parse(info).objectValue {
                        table.layerName = json.string("name")
                        table.geometryType = json.string("geometryType")
                        if table.geometryType != nil { table.kind = "Feature Class" }
                    }
                    tables[name] = table
                }
            }
            self.tables = order.compactMap { tables[$0] }
        } catch let error as PackageFormatError {
            throw error
        } catch {
            throw PackageFormatError(error, path: path)
        }
    }

    /// The table a `.mmap` path's `itemId` names.
    public func table(itemId: Int) -> Table? {
        tables.first { $0.itemId == itemId }
    }
}
