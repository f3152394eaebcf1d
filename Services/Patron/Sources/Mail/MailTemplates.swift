import Foundation

/// What each kind of mail says, in the languages Bookmobile writes mail in (English, and French to show the way: a
/// language is one more entry in `texts`). Plain text and HTML are made from the same sentences.
enum MailTemplates {
    /// The kinds of mail a patron can turn off (`PUT /me/mail`), each a `NotificationKind` that sends one.
    static let optional: [String] = ["loan_offered", "offer_expiring", "loan_due_soon", "loan_expired", "hold_resumed", "suggestion_arrived"]
    /// The verification of an address: always sent, never turned off.
    static let verify = "verify_address"
    static let languages = ["en", "fr"]

    struct Text {
        var subject: String
        var lines: [String]
        var action: String
    }

    struct Facts {
        var library: String
        var title: String?
        var deadline: Date?
        var link: String
    }

    static func text(kind: String, language: String, facts: Facts) -> Text {
        let french = language == "fr"
        let title = facts.title ?? (french ? "votre livre" : "your book")
        let deadline = facts.deadline.map { format($0, french: french) } ?? ""
        switch (kind, french) {
        case ("loan_offered", false):
            return Text(
                subject: "Your hold is ready: \(title)",
                lines: ["\(title) is ready for you to borrow.", "The offer is kept for you until \(deadline)."],
                action: "Borrow it"
            )
        case ("loan_offered", true):
            return Text(
                subject: "Votre réservation est disponible : \(title)",
                lines: ["\(title) vous attend.", "L'offre vous est réservée jusqu'au \(deadline)."],
                action: "L'emprunter"
            )
        case ("offer_expiring", false):
            return Text(subject: "Last day to borrow \(title)", lines: ["Your offer of \(title) ends on \(deadline)."], action: "Borrow it")
        case ("offer_expiring", true):
            return Text(
                subject: "Dernier jour pour emprunter \(title)",
                lines: ["L'offre de \(title) prend fin le \(deadline)."],
                action: "L'emprunter"
            )
        case ("loan_due_soon", false):
            return Text(subject: "\(title) is due soon", lines: ["Your loan of \(title) ends on \(deadline)."], action: "Open My Books")
        case ("loan_due_soon", true):
            return Text(
                subject: "\(title) arrive bientôt à échéance",
                lines: ["Votre prêt de \(title) prend fin le \(deadline)."],
                action: "Ouvrir Mes livres"
            )
        case ("loan_expired", false):
            return Text(
                subject: "Your loan of \(title) has ended",
                lines: ["Your loan of \(title) has ended and the book was returned."],
                action: "Borrow it again"
            )
        case ("loan_expired", true):
            return Text(
                subject: "Votre prêt de \(title) est terminé",
                lines: ["Votre prêt de \(title) est terminé ; le livre a été rendu."],
                action: "L'emprunter à nouveau"
            )
        case ("hold_resumed", false):
            return Text(
                subject: "Your hold on \(title) is active again",
                lines: ["Your hold on \(title) is back in the queue."],
                action: "See your holds"
            )
        case ("hold_resumed", true):
            return Text(
                subject: "Votre réservation de \(title) est réactivée",
                lines: ["Votre réservation de \(title) reprend sa place dans la file."],
                action: "Voir vos réservations"
            )
        case ("suggestion_arrived", false):
            return Text(
                subject: "\(title) has arrived",
                lines: ["You asked the library for \(title): it is here now."],
                action: "See the book"
            )
        case ("suggestion_arrived", true):
            return Text(
                subject: "\(title) est arrivé",
                lines: ["Vous aviez demandé \(title) à la bibliothèque : le voici."],
                action: "Voir le livre"
            )
        case (_, true):
            return Text(
                subject: "Confirmez votre adresse e-mail",
                lines: ["Confirmez cette adresse pour recevoir les messages de \(facts.library).", "Le lien est valable deux jours."],
                action: "Confirmer l'adresse"
            )
        default:
            return Text(
                subject: "Confirm your email address",
                lines: ["Confirm this address to receive messages from \(facts.library).", "The link works for two days."],
                action: "Confirm the address"
            )
        }
    }

    static func format(_ date: Date, french: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: french ? "fr_FR" : "en_US")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = french ? "d MMMM yyyy 'à' HH:mm 'UTC'" : "MMMM d, yyyy 'at' HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
