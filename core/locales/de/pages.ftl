# The built-in pages' and the sign-in email's texts in German.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = Anmelden
title-signout = Abmelden
title-error = Fehler
title-verify-request = E-Mail-Adresse bestätigen

## Sign-in page

signin-heading = Anmelden
signin-with = Mit { $provider } anmelden
signin-email-label = E-Mail
signin-email-placeholder = email@example.com
signin-passkey-hint = Sie haben einen Passkey? Lassen Sie das E-Mail-Feld leer. Neu hier? Geben Sie Ihre E-Mail-Adresse ein, um ein Konto mit einem Passkey zu erstellen.

## The sign-in page's message for its `error` query parameter

signin-error-default = Anmeldung nicht möglich.
signin-error-different-account = Versuchen Sie, sich mit einem anderen Konto anzumelden.
signin-error-account-not-linked = Um Ihre Identität zu bestätigen, melden Sie sich mit demselben Konto an, das Sie ursprünglich verwendet haben.
signin-error-email-send = Die E-Mail konnte nicht gesendet werden.
signin-error-credentials = Anmeldung fehlgeschlagen. Bitte prüfen Sie, ob Ihre Angaben korrekt sind.
signin-error-session-required = Bitte melden Sie sich an, um auf diese Seite zuzugreifen.
signin-error-missing-csrf = Ihr Anmeldeformular ist abgelaufen. Bitte versuchen Sie es erneut.

## Sign-out page

signout-heading = Abmelden
signout-question = Möchten Sie sich wirklich abmelden?
signout-button = Abmelden

## Error page

error-heading-default = Fehler
error-heading-configuration = Serverfehler
error-configuration-problem = Es gibt ein Problem mit der Serverkonfiguration.
error-configuration-logs = Weitere Informationen finden Sie in den Serverprotokollen.
error-heading-access-denied = Zugriff verweigert
error-access-denied = Sie sind nicht berechtigt, sich anzumelden.
error-heading-verification = Anmeldung nicht möglich
error-verification-invalid = Der Anmeldelink ist nicht mehr gültig.
error-verification-used = Möglicherweise wurde er bereits verwendet oder ist abgelaufen.
error-heading-rate-limited = Zu viele Versuche
error-rate-limited-attempts = Es gab zu viele Anmeldeversuche.
error-rate-limited-wait = Warten Sie einen Moment und versuchen Sie es dann erneut.
error-signin-button = Anmelden

## Verify-request page (after an email link was sent)

verify-heading = Prüfen Sie Ihr E-Mail-Postfach
verify-text = Ein Anmeldelink wurde an Ihre E-Mail-Adresse gesendet.

## The sign-in email

email-subject = Bei { $host } anmelden
email-button = Anmelden
email-ignore = Wenn Sie diese E-Mail nicht angefordert haben, können Sie sie einfach ignorieren.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Zugangsdaten
provider-email = E-Mail
provider-passkey = Passkey
provider-password = Passwort
signin-with-credentials = Mit Zugangsdaten anmelden
signin-with-email = Mit E-Mail anmelden
signin-with-passkey = Mit Passkey anmelden
signin-with-password = Anmelden

## The `message` of the JSON answers an API caller may show a user

api-configuration = Es gibt ein Problem mit der Serverkonfiguration. Weitere Informationen finden Sie in den Serverprotokollen.
api-overloaded = Der Server ist ausgelastet. Versuchen Sie es gleich noch einmal.
api-rate-limited = Zu viele Versuche. Versuchen Sie es später erneut.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = Die Passkey-Anfrage wurde abgebrochen oder ist abgelaufen.
passkey-error-already-registered = Dieser Passkey ist bereits registriert.
passkey-error-unsupported = Dieser Browser oder dieses Gerät kann keine Passkeys verwenden.
passkey-error-insecure = Passkeys sind unter dieser Adresse nicht verfügbar.
passkey-error-unverified = Der Passkey konnte nicht überprüft werden.
passkey-error-account-exists = Für diese E-Mail-Adresse gibt es bereits ein Konto: Melden Sie sich mit dessen Passkey an (lassen Sie die E-Mail leer oder wählen Sie den Passkey in den Vorschlägen des E-Mail-Felds).
passkey-error-ip-address = Passkeys benötigen den Domainnamen dieser Website, keine IP-Adresse.
passkey-error-use-localhost = Passkeys benötigen einen Namen, keine IP-Adresse: Öffnen Sie stattdessen { $url }.
passkey-error-failed = Die Anmeldung mit Passkey ist fehlgeschlagen ({ $error }).

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Passwort
password-new-label = Neues Passwort
password-current-label = Aktuelles Passwort
password-name-label = Name (optional)
password-forgot-link = Passwort vergessen?
password-signup-link = Konto erstellen
password-signin-link = Sie haben bereits ein Konto? Anmelden
password-set-link = Passwort festlegen
password-signup-heading = Konto erstellen
password-signup-button = Konto erstellen
password-forgot-heading = Passwort zurücksetzen
password-forgot-text = Geben Sie Ihre E-Mail-Adresse ein: Wenn es dazu ein Konto gibt, senden wir Ihnen einen Link, mit dem Sie ein neues Passwort wählen können.
password-forgot-button = Link senden
password-reset-heading = Neues Passwort wählen
password-reset-button = Passwort speichern
password-account-heading = Ihr Konto
password-change-heading = Passwort ändern
password-change-button = Passwort ändern
password-email-heading = E-Mail-Adresse ändern
password-email-current = Ihre Adresse lautet { $email }.
password-email-new-label = Neue E-Mail-Adresse
password-email-button = Bestätigungslink senden
password-delete-heading = Konto löschen
password-delete-text = Dadurch werden Ihr Konto und alle damit gespeicherten Daten gelöscht. Dies kann nicht rückgängig gemacht werden.
password-delete-button = Mein Konto löschen
password-changed = Ihr Passwort wurde geändert. Ihre anderen Sitzungen wurden abgemeldet.
password-email-sent = Falls die neue Adresse E-Mails empfangen kann, wurde ein Bestätigungslink dorthin gesendet.
password-email-changed = Ihre E-Mail-Adresse wurde geändert.
password-check-email = Falls die Adresse E-Mails empfangen kann, wurde ein Link dorthin gesendet. Öffnen Sie ihn, um fortzufahren.
password-error-wrong = Das Passwort ist nicht korrekt.
password-error-none = Für dieses Konto gibt es noch kein Passwort: Legen Sie eines über den Link fest, der an Ihre Adresse gesendet wurde.
password-error-too-short = Das Passwort muss mindestens { $min } Zeichen lang sein.
password-error-too-long = Das Passwort darf höchstens { $max } Zeichen lang sein.
password-error-email = Geben Sie eine gültige E-Mail-Adresse ein.
password-error-same-email = Das ist bereits Ihre E-Mail-Adresse.
password-error-unverified = Bestätigen Sie zuerst Ihre E-Mail-Adresse: Ein neuer Link wurde dorthin gesendet.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Bestätigen Sie Ihre E-Mail-Adresse für { $host }
password-mail-verify-button = Adresse bestätigen
password-mail-verify-note = Wenn Sie kein Konto erstellt haben, ignorieren Sie diese E-Mail einfach: Es passiert nichts.
password-mail-reset-subject = Neues Passwort für { $host } wählen
password-mail-reset-button = Neues Passwort wählen
password-mail-reset-note = Wenn Sie dies nicht angefordert haben, ignorieren Sie diese E-Mail einfach: Ihr Passwort bleibt unverändert.
password-mail-exists-subject = Für diese Adresse gibt es bereits ein Konto bei { $host }
password-mail-exists-text = Jemand hat versucht, mit Ihrer E-Mail-Adresse ein Konto zu erstellen. Sie haben bereits eines: Melden Sie sich an oder wählen Sie über den Link unten ein neues Passwort.
password-mail-exists-note = Wenn Sie das nicht waren, ignorieren Sie diese E-Mail einfach: Es wurde nichts geändert.
password-mail-confirm-subject = Bestätigen Sie Ihre neue E-Mail-Adresse für { $host }
password-mail-confirm-button = Neue Adresse bestätigen
password-mail-confirm-note = Wenn Sie dies nicht angefordert haben, ignorieren Sie diese E-Mail einfach: Es ändert sich nichts.
password-mail-changing-subject = Ihre E-Mail-Adresse bei { $host } wird geändert
password-mail-changing-text = Jemand, der in Ihrem Konto angemeldet ist, hat beantragt, dessen E-Mail-Adresse in { $email } zu ändern.
password-mail-changing-note = Wenn Sie das nicht waren, wählen Sie jetzt ein neues Passwort: Die Änderung wird erst wirksam, wenn die neue Adresse bestätigt wurde.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Anderswo angemeldet
account-sessions-text = Ihr Konto ist außerdem in den folgenden Browsern und auf den folgenden Geräten angemeldet.
account-sessions-jwt-text = Melden Sie alle anderen Browser und Geräte ab, die bei Ihrem Konto angemeldet sind.
account-sessions-end-others = Überall sonst abmelden
account-session-unknown-device = Unbekannter Browser
account-session-details = Netzwerk { $ip }, zuletzt aktiv { $when }
account-session-active = Zuletzt aktiv { $when }
account-session-end = Dieses Gerät abmelden
account-sessions-ended = Diese Sitzungen wurden abgemeldet.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Bestätigung in zwei Schritten
two-factor-text = Geben Sie den Code aus Ihrer Authenticator-App oder einen Ihrer Wiederherstellungscodes ein.
two-factor-code-label = Code
two-factor-button = Bestätigen
two-factor-error = Dieser Code ist nicht richtig oder wurde schon verwendet. Versuchen Sie den nächsten.
two-factor-cancel = Abbrechen und neu anmelden

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = In diesem Browser nicht mehr nach einem Code fragen
account-two-factor-heading = Zwei-Faktor-Authentifizierung
account-two-factor-off-text = Schützen Sie Ihr Konto zusätzlich zum Passwort mit Codes aus einer Authenticator-App.
account-two-factor-setup-button = Einrichten
account-two-factor-on-text = Aktiv. Verbleibende Wiederherstellungscodes: { $count }
account-two-factor-codes-button = Neue Wiederherstellungscodes
account-two-factor-disable-label = Ein Code aus Ihrer App, ein Wiederherstellungscode oder Ihr Passwort
account-two-factor-disable-button = Ausschalten
account-two-factor-off-notice = Die Zwei-Faktor-Authentifizierung ist aus.
account-two-factor-wrong = Das ist weder ein Code aus Ihrer App noch ein Wiederherstellungscode noch Ihr Passwort.
two-factor-on-notice = Die Zwei-Faktor-Authentifizierung ist aktiv.
two-factor-setup-heading = Zwei-Faktor-Authentifizierung einrichten
two-factor-setup-text = Scannen Sie den QR-Code mit Ihrer Authenticator-App und geben Sie dann den angezeigten Code ein.
two-factor-setup-qr-alt = QR-Code für Ihre Authenticator-App
two-factor-setup-secret = Oder geben Sie diesen Schlüssel in der App ein:
two-factor-setup-open-app = In der Authenticator-App auf diesem Gerät öffnen
two-factor-setup-button = Einschalten
two-factor-codes-heading = Ihre Wiederherstellungscodes
two-factor-codes-text = Bewahren Sie diese Codes sicher auf: Jeder meldet Sie einmal an, falls Sie Ihre Authenticator-App verlieren. Sie werden nur jetzt angezeigt.
two-factor-codes-notice = Ihre neuen Wiederherstellungscodes ersetzen die alten.
two-factor-back-link = Zurück zu Ihrem Konto

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Passkeys
account-passkeys-text = Melden Sie sich mit Fingerabdruck, Gesicht oder Bildschirmsperre statt mit einem Passwort an.
account-passkey-add = Passkey hinzufügen
account-passkey-unnamed = Passkey
account-passkey-details = Hinzugefügt am { $when }
account-passkey-remove = Entfernen
account-passkey-added = Der Passkey wurde hinzugefügt.
account-passkey-removed = Der Passkey wurde entfernt.
account-passkey-last = Dieser Passkey ist Ihre einzige Möglichkeit, sich anzumelden: Richten Sie zuerst eine andere ein.
