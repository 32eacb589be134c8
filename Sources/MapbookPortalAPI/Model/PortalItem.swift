import MapbookSupport

/// Who may see an item, as the sharing API names it.
public enum ItemAccess: String, Sendable, CaseIterable {
    /// The owner (and admins) only.
    case `private`
    /// The owner and members of the groups it is shared with.
    case shared
    /// Everyone signed in to the organization.
    case org
    /// Everyone, signed in or not.
    case `public`
}

/// An item as the sharing API describes it (`content/items/{id}`, search results).
///
/// Dates are epoch milliseconds, as the API sends them. The JSON carries the keys the
/// `arcgis` Python client and Esri's runtimes read, with neutral values for the ones this
/// portal does not keep (ratings, comments).
public struct PortalItem: Sendable, Equatable {
    public var id: String
    public var owner: String
    public var orgId: String?
    public var created: Int64
    public var modified: Int64
    public var title: String
    public var type: String
    public var typeKeywords: [String]
    /// The file name of the item's data, as uploaded.
    public var name: String?
    public var description: String?
    public var snippet: String?
    public var tags: [String]
    /// The thumbnail's path under the item's info: `thumbnail/thumbnail.png`.
    public var thumbnail: String?
    /// `[[xmin, ymin], [xmax, ymax]]` in WGS84, as the API sends it.
    public var extent: [[Double]]?
    public var accessInformation: String?
    public var licenseInfo: String?
    public var culture: String?
    public var url: String?
    public var access: ItemAccess
    /// The size of the item's data in bytes.
    public var size: Int64
    /// The id of the owner's folder holding it; nil in the owner's root.
    public var ownerFolder: String?
    public var numViews: Int

    public init(
        id: String, owner: String, orgId: String? = nil, created: Int64, modified: Int64, title: String, type: String,
        typeKeywords: [String] = [], name: String? = nil, description: String? = nil, snippet: String? = nil, tags: [String] = [],
        thumbnail: String? = nil, extent: [[Double]]? = nil, accessInformation: String? = nil, licenseInfo: String? = nil,
        culture: String? = nil, url: String? = nil, access: ItemAccess = .private, size: Int64 = 0, ownerFolder: String? = nil,
        numViews: Int = 0
    ) {
        self.id = id
        self.owner = owner
        self.orgId = orgId
        self.created = created
        self.modified = modified
        self.title = title
        self.type = type
        self.typeKeywords = typeKeywords
        self.name = name
        self.description = description
        self.snippet = snippet
        self.tags = tags
        self.thumbnail = thumbnail
        self.extent = extent
        self.accessInformation = accessInformation
        self.licenseInfo = licenseInfo
        self.culture = culture
        self.url = url
        self.access = access
        self.size = size
        self.ownerFolder = ownerFolder
        self.numViews = numViews
    }

    public var jsonValue: JSONValue {
        func text(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        let extentJSON: JSONValue = extent.map { .array($0.map { .array($0.map { .number($0) }) }) } ?? .array([])
        return .object([
            "id": .string(id),
            "owner": .string(owner),
            "orgId": text(orgId),
            "created": .integer(created),
            "isOrgItem": .bool(orgId != nil),
            "modified": .integer(modified),
            "guid": .null,
            "name": text(name),
            "title": .string(title),
            "type": .string(type),
            "typeKeywords": .array(typeKeywords.map { .string($0) }),
            "description": text(description),
            "tags": .array(tags.map { .string($0) }),
            "snippet": text(snippet),
            "thumbnail": text(thumbnail),
            "documentation": .null,
            "extent": extentJSON,
            "categories": .array([]),
            "spatialReference": .null,
            "accessInformation": text(accessInformation),
            "licenseInfo": text(licenseInfo),
            "culture": text(culture),
            "properties": .null,
            "advancedSettings": .null,
            "url": text(url),
            "proxyFilter": .null,
            "access": .string(access.rawValue),
            "size": .integer(size),
            "subInfo": .integer(0),
            "appCategories": .array([]),
            "industries": .array([]),
            "languages": .array([]),
            "largeThumbnail": .null,
            "banner": .null,
            "screenshots": .array([]),
            "listed": .bool(false),
            "ownerFolder": text(ownerFolder),
            "protected": .bool(false),
            "commentsEnabled": .bool(false),
            "numComments": .integer(0),
            "numRatings": .integer(0),
            "avgRating": .integer(0),
            "numViews": .integer(Int64(numViews)),
            "itemControl": .null,
            "scoreCompleteness": .integer(0),
            "groupDesignations": .null,
            "contentOrigin": .string("self"),
        ])
    }

    /// Reads an item from the API's JSON; `source` names where it came from in errors.
    public init(json: JSONValue, source: String) throws(PortalError) {
        guard case .object(let o) = json, let id = o["id"]?.stringValue, let owner = o["owner"]?.stringValue,
            let type = o["type"]?.stringValue
        else { throw PortalError.badRequest("\(source): not an item (it needs id, owner and type)") }
        func strings(_ key: String) -> [String] { o[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        var extent: [[Double]]?
        if let corners = o["extent"]?.arrayValue, corners.count == 2 {
            let values = corners.map { $0.arrayValue?.compactMap(\.doubleValue) ?? [] }
            if values.allSatisfy({ $0.count == 2 }) { extent = values }
        }
        self.init(
            id: id, owner: owner, orgId: o["orgId"]?.stringValue, created: o["created"]?.int64Value ?? 0,
            modified: o["modified"]?.int64Value ?? 0, title: o["title"]?.stringValue ?? "", type: type,
            typeKeywords: strings("typeKeywords"), name: o["name"]?.stringValue, description: o["description"]?.stringValue,
            snippet: o["snippet"]?.stringValue, tags: strings("tags"), thumbnail: o["thumbnail"]?.stringValue, extent: extent,
            accessInformation: o["accessInformation"]?.stringValue, licenseInfo: o["licenseInfo"]?.stringValue,
            culture: o["culture"]?.stringValue, url: o["url"]?.stringValue,
            access: o["access"]?.stringValue.flatMap(ItemAccess.init(rawValue:)) ?? .private, size: o["size"]?.int64Value ?? 0,
            ownerFolder: o["ownerFolder"]?.stringValue, numViews: o["numViews"]?.intValue ?? 0)
    }
}
