/// A source of features, read in one pass with bounded memory.
///
/// A reader knows its whole schema when it is created (readers that must infer field types or
/// the geometry type scan the file once first), then hands out features one at a time. It
/// skips or coerces bad records, noting each in `report`, and throws only when the file as a
/// whole cannot be read.
public protocol FeatureReader: AnyObject {
    /// The file being read, as the user named it.
    var path: String { get }
    var schema: LayerSchema { get }
    /// What was dropped or coerced so far.
    var report: ImportReport { get }
    /// The next feature, or nil at the end.
    func next() throws -> Feature?
}
