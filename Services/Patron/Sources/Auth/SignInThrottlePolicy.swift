import Foundation

/// The rules of sign-in throttling (docs/SECURITY.md, "Sign-in throttling"), as pure functions of the recorded
/// failures so that they can be tested without a database.
///
/// Three counters are kept: per (login, address) pair, per login across every address, and per address across
/// every login. Each attempt counts as a failure *before* the secret is checked and is taken back when it succeeds,
/// so parallel guesses cannot slip past a limit while the first of them is still being verified.
/// - The pair backs off after `pairFreeFailures`: the one client that keeps getting this login wrong waits.
/// - The login backs off after `loginFreeFailures` from anywhere, but only for addresses this login has not signed
///   in from recently (`knownAddressFor`): a patron at home still signs in while someone elsewhere guesses.
/// - An address past `addressFreeFailures` within `addressWindow` backs off, as a login does, for every login that has
///   not signed in from it recently: password spraying (one guess at each of many logins, `1234` against every card)
///   waits longer with each failure, while the patrons who use that address (a school, a library's Wi-Fi, a carrier's
///   NAT) keep signing in.
/// - An address past `addressFailures` within `addressWindow` gets no further try from it for a login it has already
///   failed on, known there or not.
/// So a correct secret, for a login that is not locked, from an address it signed in from before and has not failed on
/// since, is always checked and accepted.
struct SignInThrottlePolicy: Sendable, Equatable {
    var pairFreeFailures = 5
    var loginFreeFailures = 10
    /// The first back-off, doubled with each further failure, up to `longestBackOff`.
    var firstBackOff: TimeInterval = 30
    var longestBackOff: TimeInterval = 900
    /// Failures older than this (with none since) are forgotten.
    var forgetAfter: TimeInterval = 86_400
    var addressFailures = 100
    /// Failures from one address, for any logins, before it backs off for logins new to it.
    var addressFreeFailures = 20
    var addressWindow: TimeInterval = 600
    var knownAddressFor: TimeInterval = 90 * 86_400

    /// What is recorded under one key.
    struct Record: Sendable, Equatable {
        var failures: Int
        var lastFailureAt: Date
        var windowStartedAt: Date
    }

    /// Which limit refused an attempt.
    enum Scope: String, Sendable, Equatable {
        case login
        case loginAtAddress = "login-at-address"
        case address
    }

    enum Decision: Sendable, Equatable {
        case check
        case refuse(Scope, until: Date)
    }

    /// Until when a login or a pair with `record` backs off, if it does.
    func backOff(_ record: Record?, freeFailures: Int, now: Date) -> Date? {
        guard let record, record.lastFailureAt > now.addingTimeInterval(-forgetAfter), record.failures >= freeFailures else { return nil }
        let doublings = min(20, record.failures - freeFailures)
        let until = record.lastFailureAt.addingTimeInterval(min(longestBackOff, firstBackOff * Double(1 << doublings)))
        return until > now ? until : nil
    }

    /// Whether an address is past its limit, and until when its window runs.
    func addressLimit(_ record: Record?, now: Date) -> Date? {
        guard let record, record.windowStartedAt > now.addingTimeInterval(-addressWindow), record.failures >= addressFailures else { return nil }
        return record.windowStartedAt.addingTimeInterval(addressWindow)
    }

    /// Until when an address that failed for many logins backs off for logins new to it, if it does.
    func sprayBackOff(_ record: Record?, now: Date) -> Date? {
        guard let record, record.windowStartedAt > now.addingTimeInterval(-addressWindow) else { return nil }
        return backOff(record, freeFailures: addressFreeFailures, now: now)
    }

    func decide(login: Record?, pair: Record?, address: Record?, addressIsKnown: Bool, now: Date) -> Decision {
        if let until = backOff(pair, freeFailures: pairFreeFailures, now: now) { return .refuse(.loginAtAddress, until: until) }
        if !addressIsKnown, let until = backOff(login, freeFailures: loginFreeFailures, now: now) { return .refuse(.login, until: until) }
        if !addressIsKnown, let until = sprayBackOff(address, now: now) { return .refuse(.address, until: until) }
        if let until = addressLimit(address, now: now), (pair?.failures ?? 0) > 0,
            pair.map({ $0.lastFailureAt > now.addingTimeInterval(-forgetAfter) }) == true
        {
            return .refuse(.address, until: until)
        }
        return .check
    }

    /// The record after one more failure (a login or pair's count restarts after `forgetAfter` of quiet; an
    /// address's after its window).
    func failing(_ record: Record?, isAddress: Bool, now: Date) -> Record {
        guard let record else { return Record(failures: 1, lastFailureAt: now, windowStartedAt: now) }
        let expired =
            isAddress
            ? record.windowStartedAt <= now.addingTimeInterval(-addressWindow) : record.lastFailureAt <= now.addingTimeInterval(-forgetAfter)
        if expired { return Record(failures: 1, lastFailureAt: now, windowStartedAt: now) }
        return Record(failures: record.failures + 1, lastFailureAt: now, windowStartedAt: record.windowStartedAt)
    }
}
