/// Why an edit was refused, with a kind code and tests switch on. Nothing was written.
public struct EditError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The layer has no such field.
        case unknownField
        /// The field may not be changed: read-only, the globalid or an edit-tracking field.
        case readOnly
        /// The text cannot be a value of the field's type.
        case wrongType
        /// Not one of the field's coded values.
        case notInDomain
        /// Outside the field's range.
        case outOfRange
        /// A required field left empty.
        case required
        /// The layer has no edit schema, or the package no data to edit.
        case notEditable
        /// No feature has that id.
        case noSuchFeature
        /// The package's data changed since the pending edits were made.
        case packageChanged
        /// An attachment larger than its layer allows.
        case tooLarge
        /// A feature of a layer with geometry given no place (`--at`, `--geometry`).
        case noPlace
        /// A place outside the package's extent.
        case outsideExtent
    }

    public var kind: Kind
    public var layer: String
    public var field: String
    public var message: String

    /// "trees.condition: ...", "trees: ..." when no field is concerned, the message alone when
    /// no layer is.
    public var description: String {
        if layer.isEmpty { return message }
        return field.isEmpty ? "\(layer): \(message)" : "\(layer).\(field): \(message)"
    }
}
