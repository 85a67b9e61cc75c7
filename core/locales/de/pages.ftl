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
signin-with-credentials = Mit Zugangsdaten anmelden
signin-with-email = Mit E-Mail anmelden
signin-with-passkey = Mit Passkey anmelden

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
