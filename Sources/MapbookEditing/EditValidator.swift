import MapbookData
import MapbookSupport

/// Checks the values a field worker types (`--set FIELD=VALUE`, the viewer's form) against a
/// layer's fields and edit schema before anything is written, and turns them into values of
/// the fields' types: a coded-value field takes a code or its name, a range field a number
/// within it, a date ISO 8601; an empty text is null.
public struct EditValidator: Sendable {
    public let layer: String
    public let fields: [Field]
    public let schema: EditSchema

    public init(layer: String, fields: [Field], schema: EditSchema) {
        self.layer = layer
        self.fields = fields
        self.schema = schema
    }

    /// The values to write for a new feature: `typed` over the defaults; every required field
    /// must end with a value.
    public func insert(_ typed: [(field: String, text: String)]) throws(EditError) -> [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        for rule in schema.rules {
            if let d = rule.defaultValue { values[canonical(rule.field) ?? rule.field] = d }
        }
        for (field, value) in try check(typed) { values[field] = value }
        for rule in schema.rules where rule.required {
            let name = canonical(rule.field) ?? rule.field
            if (values[name] ?? .null) == .null {
                throw EditError(kind: .required, layer: layer, field: name, message: "is required: give it a value")
            }
        }
        return values
    }

    /// The values to write over a feature's: a required field may not become empty.
    public func update(_ typed: [(field: String, text: String)]) throws(EditError) -> [String: FieldValue] {
        let values = try check(typed)
        for (field, value) in values where value == .null && (schema.rule(field)?.required ?? false) {
            throw EditError(kind: .required, layer: layer, field: field, message: "is required and cannot be emptied")
        }
        return values
    }

    /// Each typed value as a value of its field, keyed by the field's own name.
    func check(_ typed: [(field: String, text: String)]) throws(EditError) -> [String: FieldValue] {
        var out: [String: FieldValue] = [:]
        for (name, text) in typed {
            guard let field = fields.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                let names = fields.map(\.name).filter { n in !schema.keptFields.contains { $0.lowercased() == n.lowercased() } }
                throw EditError(kind: .unknownField, layer: layer, field: name, message: "is not a field of \(layer); its fields are: \(names.joined(separator: ", "))")
            }
            if schema.keptFields.contains(where: { $0.lowercased() == field.name.lowercased() }) {
                throw EditError(kind: .readOnly, layer: layer, field: field.name, message: "is kept by mapbook (the globalid and edit tracking) and cannot be set")
            }
            let rule = schema.rule(field.name)
            if rule?.readOnly == true {
                throw EditError(kind: .readOnly, layer: layer, field: field.name, message: "is read-only")
            }
            out[field.name] = try value(text, field, rule)
        }
        return out
    }

    func value(_ text: String, _ field: Field, _ rule: EditSchema.Rule?) throws(EditError) -> FieldValue {
        let trimmed = text.trimming(" \t")
        if trimmed.isEmpty { return .null }
        func refuse(_ kind: EditError.Kind, _ message: String) -> EditError { EditError(kind: kind, layer: layer, field: field.name, message: message) }
        if case .codedValues(let values)? = rule?.domain {
            // A code as typed, else a name, without case.
            if let hit = values.first(where: { $0.code.displayText == trimmed }) ?? values.first(where: { $0.name.lowercased() == trimmed.lowercased() || ($0.code.displayText ?? "").lowercased() == trimmed.lowercased() }) {
                return hit.code
            }
            let choices = values.map { $0.name == $0.code.displayText ? $0.name : "\($0.code.displayText ?? "") (\($0.name))" }
            throw refuse(.notInDomain, "'\(trimmed)' is not one of its values: \(choices.joined(separator: ", "))")
        }
        let typed: FieldValue
        switch field.type {
        case .integer:
            guard let i = Int64(trimmed) else { throw refuse(.wrongType, "'\(trimmed)' is not a whole number") }
            typed = .integer(i)
        case .real:
            guard let d = Double(trimmed), d.isFinite else { throw refuse(.wrongType, "'\(trimmed)' is not a number") }
            typed = .real(d)
        case .boolean:
            switch trimmed.lowercased() {
            case "1", "true", "yes", "y", "t": typed = .integer(1)
            case "0", "false", "no", "n", "f": typed = .integer(0)
            default: throw refuse(.wrongType, "'\(trimmed)' is not true or false")
            }
        case .date, .dateTime:
            guard let seconds = ISODate.parse(trimmed) else { throw refuse(.wrongType, "'\(trimmed)' is not a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SSZ)") }
            typed = .text(field.type == .date ? String(ISODate.format(seconds: seconds).prefix(10)) : ISODate.format(seconds: seconds))
        case .text:
            typed = .text(text)
        case .blob:
            throw refuse(.wrongType, "holds binary data, which cannot be typed")
        }
        if let domain = rule?.domain, case .range(let lo, let hi) = domain, !domain.admits(typed) {
            throw refuse(.outOfRange, "\(trimmed) is outside its range, \(FieldValue.real(lo).displayText ?? "") to \(FieldValue.real(hi).displayText ?? "")")
        }
        return typed
    }

    /// The field's own name for `name`, without case.
    func canonical(_ name: String) -> String? { fields.first { $0.name.lowercased() == name.lowercased() }?.name }
}
