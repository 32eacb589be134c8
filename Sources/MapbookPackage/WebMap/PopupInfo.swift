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
            .string("title", \.title), .string("description", \.description), .models("fieldInfos", \.fieldInfos),
            .bool("showAttachments", \.showAttachments),
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
            .string("fieldName", \.fieldName), .string("label", \.label), .bool("isEditable", \.isEditable),
            .bool("visible", \.visible), .object("format", \.format),
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
