import Foundation

/// Header names shared by the gateway and the services.
public enum InternalHeader {
    /// The authenticated patron, set by the gateway only.
    public static let patronID = "X-Patron-ID"
    /// The gateway's signature on `X-Patron-ID` (`PatronIdentity`): without it the patron id is not believed.
    public static let patronSignature = "X-Patron-Signature"
    /// The client's address as the gateway saw it.
    public static let clientAddress = "X-Client-Address"
    /// The service token, proof that a request comes from inside.
    public static let serviceToken = "X-Service-Token"
    /// The request id, end to end.
    public static let requestID = "X-Request-ID"
    /// On a signed-in feed request: the ETag of the shared (anonymous) page the gateway holds in its edge cache.
    public static let sharedETag = "X-Internal-Shared-ETag"
    /// On catalog's 204 answer to it: the held page is this patron's page (with the answer's ETag and Cache-Control).
    /// `splice` on a 200 answer whose body is the bytes to splice into the held page (`PageSplice`).
    public static let sharedPageUsable = "X-Internal-Shared-Page"
    /// `yes` on a signed-in feed request from a gateway whose held page is not compressed: catalog may answer with the
    /// few entries the patron sees differently instead of the whole page (`PageSplice`).
    public static let spliceAccepted = "X-Internal-Splice-Accepted"
    /// On a splice answer: where each of its parts goes in the held page (`PageSplice.header`).
    public static let splice = "X-Internal-Splice"
    /// On a splice answer: the ETag of the page it makes (not `ETag`: the answer itself is not that page).
    public static let splicedETag = "X-Internal-Spliced-ETag"
    /// On catalog's answer to an anonymous request for a feed page that signed-in patrons share: the books it shows
    /// (lowercase UUIDs, comma-separated). The gateway keeps them with its copy of the page, to answer a patron whose
    /// shelf touches none of them with that copy (`PersonalPage`); it never passes the header on.
    public static let pageBooks = "X-Internal-Page-Books"
    /// On patron's answer to a change: the version of the patron's shelf that catalog now holds. The gateway sends
    /// it back with the patron's next catalog requests, so that a catalog replica whose in-memory copy is older
    /// reads the newer one (read-your-writes across replicas).
    public static let shelfVersion = "X-Internal-Shelf-Version"
    /// On patron's answer to a sign-out, a secret change, a revocation of every session or an account's deletion: the
    /// patron whose credentials changed. The gateway forgets its cached verdicts and session answers for that patron at
    /// once, whatever path or form the request took, and never passes the header on.
    public static let credentialsChanged = "X-Internal-Credentials-Changed"
    /// `yes` on the gateway's renewal of a Basic verdict it keeps: patron checks it only when no first sign-in waits.
    public static let backgroundCheck = "X-Internal-Background-Check"
    /// `yes` on the gateway's background fetch of a page its cache holds stale (the client was answered already):
    /// catalog computes the page for it when its own copy is stale too, instead of answering with that copy, so that
    /// the gateway's copy is no older than catalog's TTL allows.
    public static let staleRefresh = "X-Internal-Stale-Refresh"
}
