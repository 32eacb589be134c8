import MapbookPackage

/// The project file's `search:` (on a source) and `locator:` (top level) keys: the package's
/// single-field locators and the composite that lists them (DESIGN.md 3.5, docs/PROJECT.md).
extension Project {
    static let searchKeys = ["field", "display", "rank", "output_fields", "outputFields", "address", "name"]

    /// The composite locator's name: `locator.name`, else `<package name>Locator`.
    public var locatorName: String { locator?.name ?? name + "Locator" }

    /// Every source's locators, in project order: the composite's participants.
    public var searches: [(source: SourceSpec, search: SearchSpec)] {
        sources.flatMap { source in source.search.map { (source, $0) } }
    }

    /// `search: FIELD`, `search: { field: F, ... }`, or a list of either (several locators on
    /// one source, e.g. trees by address and by species).
    static func parseSearch(_ node: ProjectNode, source: SourceSpec) throws(ProjectError) -> [SearchSpec] {
        let items: [ProjectNode] = node.node.sequence != nil ? try node.items() : [node]
        guard !items.isEmpty else { throw node.error(.missingKey, "'search' lists no fields; give search: FIELD or search: { field: FIELD }") }
        var out: [SearchSpec] = []
        for item in items {
            out.append(try parseOneSearch(item, source: source, several: items.count > 1))
        }
        return out
    }

    static func parseOneSearch(_ node: ProjectNode, source: SourceSpec, several: Bool) throws(ProjectError) -> SearchSpec {
        let fieldNode: ProjectNode
        if node.node.scalar != nil {
            fieldNode = node
        } else {
            try node.checkKeys(searchKeys)
            fieldNode = try node.required("field")
        }
        let field = try fieldNode.string()
        guard !field.isEmpty else { throw fieldNode.error(.invalidValue, "the search field's name is empty") }
        let title = source.title ?? source.name
        var spec = SearchSpec(
            field: field, isAddress: field.lowercased().contains("addr"), name: several ? "\(title) (\(field))" : title,
            folder: folderName(source.name + (several ? "-" + field : "")), line: node.line, key: node.path)
        guard node.node.scalar == nil else { return spec }
        spec.displayField = try node["display"]?.string()
        spec.rankField = try node["rank"]?.string()
        switch (node["output_fields"], node["outputFields"]) {
        case (let a?, let b?):
            throw b.error(.conflictingKeys, "give the output fields once: 'output_fields' and 'outputFields' are the same key (at line \(a.line.map(String.init) ?? "?"))")
        case (let list?, nil), (nil, let list?):
            spec.outputFields = try list.strings()
            var seen = Set<String>()
            for f in spec.outputFields where !seen.insert(f).inserted {
                throw list.error(.duplicateName, "'\(f)' is listed twice")
            }
        case (nil, nil):
            break
        }
        if let address = node["address"] { spec.isAddress = try address.bool() }
        if let nameNode = node["name"] {
            spec.name = try nameNode.string()
            guard !spec.name.allSatisfy(\.isWhitespace) else { throw nameNode.error(.invalidValue, "a locator's name cannot be empty") }
        }
        return spec
    }

    /// A locator folder from a source name: letters, digits, '-' and '_' kept, anything
    /// else (spaces, dots, slashes, accents) made '_', so it is a safe, portable entry name.
    static func folderName(_ source: String) -> String {
        var out = ""
        for u in source.unicodeScalars {
            let keep = (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || (u >= "0" && u <= "9") || u == "-" || u == "_"
            out.unicodeScalars.append(keep ? u : "_")
        }
        return out.isEmpty ? "_" : out
    }

    /// Participant names and folders must differ (ignoring case: the names are compared by
    /// people and the folders may land on a case-insensitive file system).
    static func checkSearch(_ sources: [SourceSpec], file: String) throws(ProjectError) {
        var names: [String: String] = [:]
        var folders: [String: String] = [:]
        for source in sources {
            for spec in source.search {
                func error(_ kind: ProjectError.Kind, _ message: String) -> ProjectError { ProjectError(kind: kind, file: file, key: spec.key, line: spec.line, message: message) }
                if let other = names[spec.name.lowercased()] {
                    throw error(.duplicateName, "two locators are named '\(spec.name)' (\(other) and here); give one a different 'name'")
                }
                names[spec.name.lowercased()] = spec.key
                if let other = folders[spec.folder.lowercased()] {
                    throw error(.duplicateName, "this locator's folder 'locators/\(spec.folder)' is also \(other)'s (folders come from source names, made safe file names); rename a source")
                }
                folders[spec.folder.lowercased()] = spec.key
            }
        }
    }

    static func parseLocator(_ node: ProjectNode, hasSearch: Bool) throws(ProjectError) -> CompositeLocatorSpec {
        try node.checkKeys(["name", "quality"])
        guard hasSearch else {
            throw node.error(.missingKey, "no source has 'search', so the package has no locator; add e.g. search: { field: FACILITYID } to a source")
        }
        var spec = CompositeLocatorSpec(line: node.line, key: node.path)
        if let nameNode = node["name"] {
            let name = try nameNode.string()
            guard !name.isEmpty, !name.contains("/"), !name.contains("\\"), EntryName.problem("locators/\(name).loc.json") == nil else {
                throw nameNode.error(.invalidValue, "'\(name)' cannot be a file name (the composite is locators/<name>.loc.json)")
            }
            spec.name = name
        }
        spec.quality = try node["quality"]?.string()
        return spec
    }
}
