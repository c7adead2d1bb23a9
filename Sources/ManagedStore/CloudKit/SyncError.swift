/// The error a sync event ended with. The store keeps only the domain and the code (the
/// description and user info are not persisted), so this names the code and says what it
/// means in the words of Apple's documentation for it, and where a cause is merely common,
/// says that rather than claim it.
public struct SyncError: Sendable, Equatable, CustomStringConvertible {
    public var domain: String
    public var code: Int64

    public init(domain: String, code: Int64) {
        self.domain = domain
        self.code = code
    }

    /// `CKError.Code` or a Cocoa/Core Data constant's name; nil for a code not listed.
    public var name: String? { Self.catalog[domain]?[code]?.name }

    /// What the code means, and what usually causes it where that is known.
    public var meaning: String? { Self.catalog[domain]?[code]?.meaning }

    /// "CKErrorDomain 2 (partialFailure)", or the number alone for a code not listed.
    public var description: String {
        let place = domain.isEmpty ? "code" : domain
        return name.map { "\(place) \(code) (\($0))" } ?? "\(place) \(code)"
    }

    private struct Entry {
        let name: String
        let meaning: String
    }

    private static let cloudKit: [Int64: Entry] = [
        1: Entry(name: "internalError", meaning: "a nonrecoverable error inside CloudKit"),
        2: Entry(name: "partialFailure", meaning: "some records failed while the operation as a whole succeeded; each record has its own "
                 + "error, which the store does not keep. A common cause: a record type or field the container's production schema lacks "
                 + "(the schema was not deployed from development)"),
        3: Entry(name: "networkUnavailable", meaning: "the network is unavailable"),
        4: Entry(name: "networkFailure", meaning: "a network is available, but CloudKit is not reachable"),
        5: Entry(name: "badContainer", meaning: "an unknown or unauthorized container: commonly a container identifier the app's "
                 + "entitlements or provisioning profile does not list"),
        6: Entry(name: "serviceUnavailable", meaning: "CloudKit is unavailable; the export is retried later"),
        7: Entry(name: "requestRateLimited", meaning: "CloudKit is rate-limiting requests; the export is retried later"),
        8: Entry(name: "missingEntitlement", meaning: "the app lacks a required entitlement (iCloud with CloudKit)"),
        9: Entry(name: "notAuthenticated", meaning: "no iCloud account is signed in on the device, or it is restricted"),
        10: Entry(name: "permissionFailure", meaning: "the user may not save or fetch this data"),
        11: Entry(name: "unknownItem", meaning: "the record does not exist on the server"),
        12: Entry(name: "invalidArguments", meaning: "the request contains invalid information. A common cause: a field or record "
                  + "type the production schema lacks, or a value of the wrong type for an existing field"),
        13: Entry(name: "resultsTruncated", meaning: "(deprecated) CloudKit truncated a query's results"),
        14: Entry(name: "serverRecordChanged", meaning: "the server's version of the record differs from the one the change was based on"),
        15: Entry(name: "serverRejectedRequest", meaning: "CloudKit rejected the request; nonrecoverable. A common cause: a record "
                  + "type or field the production schema lacks"),
        16: Entry(name: "assetFileNotFound", meaning: "the file of an asset (external binary data) is missing"),
        17: Entry(name: "assetFileModified", meaning: "an asset's file changed while it was being saved"),
        18: Entry(name: "incompatibleVersion", meaning: "the app version is older than the oldest the container allows"),
        19: Entry(name: "constraintViolation", meaning: "the server rejected the request because of a unique-field conflict"),
        20: Entry(name: "operationCancelled", meaning: "the operation was cancelled"),
        21: Entry(name: "changeTokenExpired", meaning: "the server change token is too old; the next import starts over"),
        22: Entry(name: "batchRequestFailed", meaning: "the whole batch was rejected because one record in it failed (custom zones "
                  + "save atomically); look for the record that failed"),
        23: Entry(name: "zoneBusy", meaning: "the server is too busy to handle the zone operation; retried later"),
        24: Entry(name: "badDatabase", meaning: "the operation cannot complete on this database"),
        25: Entry(name: "quotaExceeded", meaning: "saving would exceed the user's iCloud storage quota"),
        26: Entry(name: "zoneNotFound", meaning: "the record zone does not exist on the server (commonly deleted, or a reset of "
                  + "the development environment)"),
        27: Entry(name: "limitExceeded", meaning: "the request to the server is too large; Core Data splits the batch and retries"),
        28: Entry(name: "userDeletedZone", meaning: "the user deleted the zone (for example from iCloud settings)"),
        29: Entry(name: "tooManyParticipants", meaning: "a share has too many participants"),
        30: Entry(name: "alreadyShared", meaning: "saving would put a record in two shares"),
        31: Entry(name: "referenceViolation", meaning: "the target of a record's parent or share reference was not found"),
        32: Entry(name: "managedAccountRestricted", meaning: "the request was rejected because of a managed-account restriction"),
        33: Entry(name: "participantMayNeedVerification", meaning: "the share participant may need to verify their account"),
        34: Entry(name: "serverResponseLost", meaning: "the server's response was lost; the operation may or may not have completed"),
        35: Entry(name: "assetNotAvailable", meaning: "the system cannot access the asset"),
        36: Entry(name: "accountTemporarilyUnavailable", meaning: "the iCloud account is temporarily unavailable (it needs the "
                  + "user to sign in again)"),
    ]

    private static let cocoa: [Int64: Entry] = [
        134060: Entry(name: "NSCoreDataError", meaning: "a general Core Data error"),
        134301: Entry(name: "NSPersistentHistoryTokenExpiredError", meaning: "history after the token was deleted (purged), so "
                      + "changes could not be read from it"),
        134407: Entry(name: "(request cancelled)", meaning: "the request was cancelled because the store was removed from its "
                      + "coordinator, commonly when the app quit or closed the store mid-sync"),
        4097: Entry(name: "NSXPCConnectionInterrupted", meaning: "the connection to a system service was interrupted"),
        4099: Entry(name: "NSXPCConnectionInvalid", meaning: "the connection to a system service could not be made"),
    ]

    private static let catalog: [String: [Int64: Entry]] = ["CKErrorDomain": cloudKit, "NSCocoaErrorDomain": cocoa]
}
