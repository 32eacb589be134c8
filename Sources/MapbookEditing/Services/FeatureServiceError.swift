/// Why a feature service refused a request, with a kind code and tests switch on and the HTTP
/// status the ArcGIS REST API answers with (400: change the request; 404: no such layer).
public struct FeatureServiceError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A parameter that cannot be read: not a number, not JSON, not one of its values.
        case badParameter
        /// A `where` the filter grammar refuses (functions, subqueries, unknown fields).
        case badWhere
        /// A geometry that is not valid ArcGIS JSON, or not of the declared type.
        case badGeometry
        /// A spatial reference that cannot be used.
        case badSpatialReference
        /// A field to return or order by that the layer does not have.
        case unknownField
        /// No layer or table has that id.
        case noSuchLayer
        /// No feature, attachment or relationship has that id.
        case noSuchFeature
        /// Something the API has that this service does not do (statistics, a relation).
        case unsupported
    }

    public var kind: Kind
    /// The parameter concerned (`where`, `geometry`, ...), or empty.
    public var parameter: String
    public var message: String

    public init(_ kind: Kind, parameter: String = "", _ message: String) {
        self.kind = kind
        self.parameter = parameter
        self.message = message
    }

    public var status: Int { kind == .noSuchLayer || kind == .noSuchFeature ? 404 : 400 }

    public var description: String { parameter.isEmpty ? message : "\(parameter): \(message)" }
}
