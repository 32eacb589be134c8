
/// A feature table that cannot be opened or queried, naming the file, the table and the cause.
public struct FeatureTableError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The database has neither `gpkg_contents` nor an Esri `GDB_Items` table.
        case notAGeoPackage
        /// No feature or attribute table of that name.
        case noSuchTable
        /// A field asked for is not a column of the table.
        case noSuchField
        /// A query by place on a table without a geometry column.
        case noGeometry
        /// The layer's `definitionExpression` is outside the safe subset of SQL.
        case invalidFilter(FeatureFilterError.Kind)
        /// The table's geometries are in a format whose encoding is not public (Esri's
        /// ST_Geometry in mobile geodatabases): attributes can be read, shapes cannot.
        case geometryFormatNotPublic
        /// SQLite failed while reading: a damaged file, or a table that is not what its
        /// metadata says.
        case unreadable
    }

    public var kind: Kind
    public var path: String
    public var table: String
    public var message: String

    public var description: String { "Cannot read the table '\(table)' of '\(path)': \(message)" }
}
