import MapbookSupport

/// Which features of a table a feature service's `query` wants (issue 33), beyond the table's
/// filter (its `where`): some ids, those meeting a box and passing a finer geometry test, in an
/// order, one page of them.
public struct FeatureSelection: Sendable {
    /// Only these ids (nil: any).
    public var ids: [Int64]?
    /// Only features whose geometry meets this box, in the table's coordinates.
    public var box: BoundingBox?
    /// Only features whose geometry passes this test too (a polygon's `intersects`), after
    /// the box's; the geometry is in the table's coordinates.
    public var test: (@Sendable (Geometry) -> Bool)?
    /// Columns to order by, then the id.
    public var order: [(field: String, descending: Bool)] = []
    /// Features passed over before the first returned.
    public var offset = 0
    /// At most this many (nil: all).
    public var limit: Int?

    public init(ids: [Int64]? = nil, box: BoundingBox? = nil, test: (@Sendable (Geometry) -> Bool)? = nil) {
        self.ids = ids
        self.box = box
        self.test = test
    }

    /// Whether features are chosen by place (so by a test of their geometry, not in SQL alone).
    public var isSpatial: Bool { box != nil || test != nil }
}
