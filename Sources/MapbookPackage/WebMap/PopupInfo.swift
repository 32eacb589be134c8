import MapbookSupport

/// What identify shows for a feature: a title template and the fields with their labels.
public struct PopupInfo: JSONModel {
    public var title: String?
    public var description: String?
    public var fieldInfos: [FieldInfo]?
    public var showAttachments: Bool?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        title = json.string("title")
        description = json.string("description")
        fieldInfos = json.models("fieldInfos")
        showAttachments = json.bool("showAttachments")
    }

    public init(title: String, fieldInfos: [FieldInfo]) {
        self.init(json: JSONObject())
        self.title = title
        self.fieldInfos = fieldInfos
    }

    public var json: JSONObject {
        var o = original
        o.set("title", title)
        o.set("description", description)
        o.setModels("fieldInfos", fieldInfos)
        o.set("showAttachments", showAttachments)
        return o
    }
}

/// One field of a pop-up: its name, label, visibility and number or date format.
public struct FieldInfo: JSONModel {
    public var fieldName: String?
    public var label: String?
    public var visible: Bool?
    public var isEditable: Bool?
    /// `{"places", "digitSeparator", "dateFormat"}`.
    public var format: JSONObject?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        fieldName = json.string("fieldName")
        label = json.string("label")
        visible = json.bool("visible")
        isEditable = json.bool("isEditable")
        format = json.object("format")
    }

    public init(fieldName: String, label: String? = nil, visible: Bool = true) {
        self.init(json: JSONObject())
        self.fieldName = fieldName
        self.label = label ?? fieldName
        self.visible = visible
        self.isEditable = false
    }

    public var json: JSONObject {
        var o = original
        o.set("fieldName", fieldName)
        o.set("label", label)
        o.set("isEditable", isEditable)
        o.set("visible", visible)
        o.set("format", format.map(JSONValue.object))
        return o
    }
}
