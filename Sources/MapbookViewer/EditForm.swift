import MapbookData
import MapbookEditing
import MapbookPackage

/// An editable layer's fields as a form shows them (`mapbook view`'s edit panel, a map page's
/// edit form): the fields a user may set, those the layer's pop-up shows first in its order
/// and with its labels, then the others with their aliases; each with its value as text (a
/// coded value by its name), its domain's choices and what it may be. Values typed into it go
/// to the working copy as `mapbook edit --set` takes them, checked by the same `EditValidator`.
public struct EditForm: Sendable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var label: String
        public var text: String
        /// The domain's names, when the field has coded values.
        public var choices: [String]?
        /// What the value may be, shown beside it ("0 to 300", "required").
        public var hint: String
        public var required: Bool
        public var type: FieldType
    }

    /// The layer's table in the working copy.
    public var table: String
    public var layerTitle: String
    /// The feature edited; nil for a new one.
    public var fid: Int64?
    /// Whether new features are points (added at a place tapped or the map's centre).
    public var isPointLayer: Bool
    public var fields: [Field]

    /// The editable table behind a map layer, or nil: editable is a layer whose table has an
    /// edit schema in the package, as `mapbook edit` requires (`WorkingCopy.checkEditable`).
    public static func editableTable(_ layer: ViewerLayer, package: MobileMapPackage) -> String? {
        guard let table = layer.definition.dataPath?.table, (try? WorkingCopy.checkEditable(package: package, layer: table)) != nil else { return nil }
        return table
    }

    /// The form of feature `fid` of `layer` (its values), or of a new feature (the defaults).
    public init(_ layer: ViewerLayer, table: String, copy: WorkingCopy, fid: Int64?) throws {
        let (features, validator) = try copy.layer(table)
        let schema = validator.schema
        let editable = features.fields.filter { schema.isEditable($0.name) && $0.name != features.idColumn && $0.name != features.geometryColumn }
        var labels: [String: String] = [:]
        for field in layer.definition.layerDefinition?.original.array("fields") ?? [] {
            if let o = field.objectValue, let name = o.string("name"), let alias = o.string("alias") { labels[name] = alias }
        }
        var first: [String] = []
        for info in layer.definition.popupInfo?.fieldInfos ?? [] {
            guard let name = info.fieldName, editable.contains(where: { $0.name == name }), !first.contains(name) else { continue }
            first.append(name)
            if let label = info.label { labels[name] = label }
        }
        let ordered = first.compactMap { name in editable.first { $0.name == name } } + editable.filter { !first.contains($0.name) }
        let values = try fid.flatMap { try features.feature(id: $0, fields: ordered.map(\.name)) }?.values
        self.table = table
        layerTitle = layer.title
        self.fid = fid
        isPointLayer = features.geometryType?.family == .point
        fields = ordered.enumerated().map { i, field in
            let value = values.map { $0[i] } ?? schema.rule(field.name)?.defaultValue ?? .null
            return Self.field(field, value: value, schema: schema, label: labels[field.name])
        }
    }

    static func field(_ field: MapbookData.Field, value: FieldValue, schema: EditSchema, label: String?) -> Field {
        let rule = schema.rule(field.name)
        var text = value.displayText ?? ""
        var choices: [String]?
        var hint = ""
        switch rule?.domain {
        case .codedValues(let values)?:
            choices = values.map(\.name)
            text = values.first { $0.code == value }?.name ?? text
        case .range(let lo, let hi)?:
            hint = "\(FieldValue.real(lo).displayText ?? "") to \(FieldValue.real(hi).displayText ?? "")"
        case nil:
            break
        }
        let required = rule?.required == true
        if required { hint += hint.isEmpty ? "required" : ", required" }
        return Field(name: field.name, label: label ?? field.name, text: text, choices: choices, hint: hint, required: required, type: field.type)
    }
}
