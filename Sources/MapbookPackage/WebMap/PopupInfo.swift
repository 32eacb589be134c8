import MapbookSupport

/// What identify shows for a feature: a title template and the fields with their labels.
public struct PopupInfo: JSONRecord {
    public var title: String?
    public var description: String?
    public var fieldInfos: [FieldInfo]?
    public var showAttachments: Bool?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .string("title", { $0.title }, { $0.title = $1 }),
            .string("description", { $0.description }, { $0.description = $1 }),
            .models("fieldInfos", { $0.fieldInfos }, { $0.fieldInfos = $1 }),
            .bool("showAttachments", { $0.showAttachments }, { $0.showAttachments = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(title: String, fieldInfos: [FieldInfo]) {
        self.init(original: JSONObject())
        self.title = title
        self.fieldInfos = fieldInfos
    }
}

/// One field of a pop-up: its name, label, visibility and number or date format.
public struct FieldInfo: JSONRecord {
    public var fieldName: String?
    public var label: String?
    public var visible: Bool?
    public var isEditable: Bool?
    /// `{"places", "digitSeparator", "dateFormat"}`.
    public var format: JSONObject?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .string("fieldName", { $0.fieldName }, { $0.fieldName = $1 }),
            .string("label", { $0.label }, { $0.label = $1 }),
            .bool("isEditable", { $0.isEditable }, { $0.isEditable = $1 }),
            .bool("visible", { $0.visible }, { $0.visible = $1 }), .object("format", { $0.format }, { $0.format = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(fieldName: String, label: String? = nil, visible: Bool = true) {
        self.init(original: JSONObject())
        self.fieldName = fieldName
        self.label = label ?? fieldName
        self.visible = visible
        self.isEditable = false
    }
}
