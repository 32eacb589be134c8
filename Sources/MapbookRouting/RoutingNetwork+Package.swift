import MapbookPackage

extension RoutingNetwork {
    /// The networks a package holds (`<p>/network/<name>.mnet`), by name.
    public static func names(in package: MobileMapPackage) -> [String] {
        package.archive.entries.compactMap { entry in
            let parts = entry.name.split(separator: "/")
            guard parts.count >= 2, parts[parts.count - 2] == "network", entry.name.hasSuffix(".mnet") else { return nil }
            return String(parts[parts.count - 1].dropLast(".mnet".count))
        }
    }

    /// Opens the package's network `name` (or its only one) in place.
    public static func open(_ package: MobileMapPackage, name: String? = nil) throws(RoutingError) -> RoutingNetwork {
        let source = package.archive.displayPath
        let available = names(in: package)
        guard !available.isEmpty else {
            throw RoutingError(kind: .noNetwork, source: source, message: "the package has no street network; give the project a 'network: { source: STREETS }' and build it again")
        }
        let chosen: String
        if let name {
            guard let match = available.first(where: { $0.lowercased() == name.lowercased() }) else {
                throw RoutingError(kind: .noNetwork, source: source, message: "the package has no network named '\(name)'; it has: \(available.joined(separator: ", "))")
            }
            chosen = match
        } else {
            guard available.count == 1 else {
                throw RoutingError(kind: .noNetwork, source: source, message: "the package has \(available.count) networks (\(available.joined(separator: ", "))); name one with --network")
            }
            chosen = available[0]
        }
        guard let entry = package.archive.entries.first(where: { $0.name.hasSuffix("network/\(chosen).mnet") }) else {
            throw RoutingError(kind: .noNetwork, source: source, message: "the network '\(chosen)' vanished from the package")
        }
        let range: ByteRange
        do { range = try package.archive.dataRange(of: entry) } catch {
            throw RoutingError(kind: .damaged, source: "\(source)[\(entry.name)]", message: "\(error)")
        }
        return try RoutingNetwork(range: range, source: "\(source)[\(entry.name)]")
    }
}
