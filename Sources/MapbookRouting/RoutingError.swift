/// Why a network could not be built or read, or a route not found: a kind to switch on,
/// what was being done, the file or layer, and what a user can do about it.
public struct RoutingError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The network file is not one, is of a newer version, or is damaged.
        case notANetwork, newerVersion, damaged
        /// The source layer cannot make a network (not lines, no edges, unreadable fields).
        case badSource
        /// A place is too far from every street, or could not be found.
        case placeNotFound, tooFarFromStreets
        /// No way leads from the start to the destination.
        case unreachable
        /// Start and destination are the same place.
        case samePlace
        /// The package has no network (or not the one named).
        case noNetwork
        /// Preprocessing ran past the time limit its project gives it.
        case timeLimit
    }

    public var kind: Kind
    public var source: String
    public var message: String

    public var description: String { source.isEmpty ? message : "\(source): \(message)" }
}
