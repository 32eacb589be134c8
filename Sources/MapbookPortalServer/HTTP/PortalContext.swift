import Hummingbird

/// What a request carries through the router: the signed-in user, if any.
public struct PortalContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The user the request's token belongs to; nil for anonymous requests.
    public var user: UserRecord?
    /// Whether the request presented a token at all (an invalid one gives 498 where needed).
    public var presentedToken = false
    /// The address of the socket's other end (a client, or a proxy in front of the portal);
    /// nil when the channel has none (router tests).
    public var remoteAddress: String?

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }
}
