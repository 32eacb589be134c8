/// One row of a feature table as a query returns it: its id, its geometry in the table's CRS
/// and the values of the fields the query asked for, in that order.
public struct TableFeature: Sendable, Equatable {
    /// The table's primary key (`fid` in GeoPackages, `OBJECTID` in Esri geodatabases).
    public var id: Int64
    /// Nil for a row without geometry, a table without a geometry column, or a geometry that
    /// could not be decoded (then `geometryProblem` says why).
    public var geometry: Geometry?
    public var values: [FieldValue]
    public var geometryProblem: String?

    public init(id: Int64, geometry: Geometry?, values: [FieldValue], geometryProblem: String? = nil) {
        self.id = id
        self.geometry = geometry
        self.values = values
        self.geometryProblem = geometryProblem
    }
}
