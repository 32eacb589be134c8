import MapbookSupport

extension XMLDocumentIO {
    /// Parses a package's item file, requiring its root element to be `rootName`.
    public static func parseItemFile(_ bytes: [UInt8], path: String, rootName: String) throws(PackageFormatError) -> XMLElement {
        let root: XMLElement
        do {
            root = try parse(bytes, path: path)
        } catch {
            throw PackageFormatError(kind: .xml(error.kind), path: path, message: error.message)
        }
        guard root.name == rootName else {
            throw PackageFormatError(kind: .wrongFormat, path: path, message: "the root element is <\(root.name)>, expected <\(rootName)>")
        }
        return root
    }
}
