/// An object a listing found.
public struct S3Object: Sendable, Equatable {
    public var key: String
    public var size: Int64
    /// ISO 8601, as S3 lists it.
    public var lastModified: String
}
