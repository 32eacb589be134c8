import MapbookData
import MapbookEditing
import Testing

/// Values typed by a field worker, checked against the layer's fields and edit schema: one
/// case per rule, each refused with its kind and nothing else in the message decided on.
@Suite struct EditValidatorTests {
    static let validator = EditValidator(
        layer: "trees",
        fields: [
            Field(name: "common", type: .text), Field(name: "condition", type: .text), Field(name: "dbh", type: .real),
            Field(name: "objectid", type: .integer), Field(name: "planted", type: .date), Field(name: "wires", type: .boolean),
            Field(name: "status", type: .integer), Field(name: "globalid", type: .text), Field(name: "last_edited_user", type: .text),
        ],
        schema: EditSchema(
            rules: [
                .init(field: "condition", domain: .codedValues(["Good", "Fair", "Poor", "Dead"].map { .init(code: .text($0), name: $0) }), required: true, defaultValue: .text("Good")),
                .init(field: "dbh", domain: .range(min: 0, max: 300)),
                .init(field: "common", required: true),
                .init(field: "objectid", readOnly: true),
                .init(field: "status", domain: .codedValues([.init(code: .integer(1), name: "Active"), .init(code: .integer(2), name: "Removed")])),
            ],
            tracking: EditSchema.Tracking()))

    @Test func valuesAreTypedAndDomainsTakeCodesOrNames() throws {
        let values = try Self.validator.insert([("common", "oak"), ("DBH", "12.5"), ("planted", "2024-04-01"), ("wires", "yes"), ("status", "removed"), ("condition", "fair")])
        #expect(values == [
            "common": .text("oak"), "dbh": .real(12.5), "planted": .text("2024-04-01"), "wires": .integer(1), "status": .integer(2), "condition": .text("Fair"),
        ])
        // The default fills what is not given.
        #expect(try Self.validator.insert([("common", "elm")])["condition"] == .text("Good"))
        // An update changes only what is given; an empty text empties a field that may be empty.
        #expect(try Self.validator.update([("dbh", "")]) == ["dbh": .null])
    }

    @Test(arguments: [
        ("nonsense", "1", EditError.Kind.unknownField),
        ("objectid", "7", .readOnly),
        ("globalid", "{X}", .readOnly),
        ("last_edited_user", "me", .readOnly),
        ("dbh", "thick", .wrongType),
        ("dbh", "301", .outOfRange),
        ("dbh", "-1", .outOfRange),
        ("condition", "Splendid", .notInDomain),
        ("status", "3", .notInDomain),
        ("planted", "last spring", .wrongType),
        ("wires", "maybe", .wrongType),
        ("common", "", .required),
    ])
    func eachRuleRefusesWithItsKind(field: String, text: String, kind: EditError.Kind) {
        let result: Result<[String: FieldValue], EditError>
        do { result = .success(try Self.validator.update([(field, text)])) } catch { result = .failure(error) }
        guard case .failure(let error) = result else {
            Issue.record("\(field)=\(text) was accepted")
            return
        }
        #expect(error.kind == kind, "\(error)")
        #expect(error.field.lowercased() == field.lowercased())
    }

    @Test func aNewFeatureNeedsItsRequiredFields() {
        let result: Result<[String: FieldValue], EditError>
        do { result = .success(try Self.validator.insert([("dbh", "3")])) } catch { result = .failure(error) }
        guard case .failure(let error) = result else { Issue.record("accepted without common"); return }
        #expect(error.kind == .required && error.field == "common", "\(error)")
    }
}
