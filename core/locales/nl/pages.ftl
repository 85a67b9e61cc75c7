# The built-in pages' and the sign-in email's texts in Dutch.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = Inloggen
title-signout = Uitloggen
title-error = Fout
title-verify-request = E-mailadres bevestigen

## Sign-in page

signin-heading = Inloggen
signin-with = Inloggen met { $provider }
signin-email-label = E-mail
signin-email-placeholder = email@example.com
signin-passkey-hint = Heb je een passkey? Laat het e-mailveld leeg. Nieuw hier? Vul je e-mailadres in om een account met een passkey aan te maken.

## The sign-in page's message for its `error` query parameter

signin-error-default = Inloggen is niet gelukt.
signin-error-different-account = Probeer in te loggen met een ander account.
signin-error-account-not-linked = Log in met hetzelfde account dat je oorspronkelijk hebt gebruikt om je identiteit te bevestigen.
signin-error-email-send = De e-mail kon niet worden verzonden.
signin-error-credentials = Inloggen mislukt. Controleer of de gegevens die je hebt opgegeven juist zijn.
signin-error-session-required = Log in om deze pagina te bekijken.
signin-error-missing-csrf = Je inlogformulier is verlopen. Probeer het opnieuw.

## Sign-out page

signout-heading = Uitloggen
signout-question = Weet je zeker dat je wilt uitloggen?
signout-button = Uitloggen

## Error page

error-heading-default = Fout
error-heading-configuration = Serverfout
error-configuration-problem = Er is een probleem met de serverconfiguratie.
error-configuration-logs = Raadpleeg de serverlogboeken voor meer informatie.
error-heading-access-denied = Toegang geweigerd
error-access-denied = Je hebt geen toestemming om in te loggen.
error-heading-verification = Inloggen niet mogelijk
error-verification-invalid = De inloglink is niet meer geldig.
error-verification-used = Misschien is hij al gebruikt of is hij verlopen.
error-heading-rate-limited = Te veel pogingen
error-rate-limited-attempts = Er zijn te veel inlogpogingen gedaan.
error-rate-limited-wait = Wacht even en probeer het dan opnieuw.
error-signin-button = Inloggen

## Verify-request page (after an email link was sent)

verify-heading = Controleer je e-mail
verify-text = Er is een inloglink naar je e-mailadres verzonden.

## The sign-in email

email-subject = Inloggen bij { $host }
email-button = Inloggen
email-ignore = Als je deze e-mail niet hebt aangevraagd, kun je hem gewoon negeren.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Inloggegevens
provider-email = E-mail
provider-passkey = Passkey
provider-password = Wachtwoord
signin-with-credentials = Inloggen met inloggegevens
signin-with-email = Inloggen met e-mail
signin-with-passkey = Inloggen met een passkey
signin-with-password = Inloggen

## The `message` of the JSON answers an API caller may show a user

api-configuration = Er is een probleem met de serverconfiguratie. Raadpleeg de serverlogboeken voor meer informatie.
api-overloaded = De server is bezet. Probeer het zo opnieuw.
api-rate-limited = Te veel pogingen. Probeer het later opnieuw.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = Het passkeyverzoek is geannuleerd of verlopen.
passkey-error-already-registered = Deze passkey is al geregistreerd.
passkey-error-unsupported = Deze browser of dit apparaat kan geen passkeys gebruiken.
passkey-error-insecure = Passkeys zijn niet beschikbaar op dit adres.
passkey-error-unverified = De passkey kon niet worden geverifieerd.
passkey-error-account-exists = Er bestaat al een account met dit e-mailadres: log in met de passkey ervan (laat het e-mailadres leeg of kies de passkey in de suggesties van het e-mailveld).
passkey-error-ip-address = Passkeys hebben de domeinnaam van deze site nodig, geen IP-adres.
passkey-error-use-localhost = Passkeys hebben een naam nodig, geen IP-adres: open in plaats daarvan { $url }.
passkey-error-failed = Inloggen met passkey mislukt ({ $error }).

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Wachtwoord
password-new-label = Nieuw wachtwoord
password-current-label = Huidig wachtwoord
password-name-label = Naam (optioneel)
password-forgot-link = Wachtwoord vergeten?
password-signup-link = Account aanmaken
password-signin-link = Heb je al een account? Log in
password-set-link = Wachtwoord instellen
password-signup-heading = Account aanmaken
password-signup-button = Account aanmaken
password-forgot-heading = Wachtwoord opnieuw instellen
password-forgot-text = Vul je e-mailadres in: als er een account bij hoort, sturen we er een link naartoe om een nieuw wachtwoord te kiezen.
password-forgot-button = Link versturen
password-reset-heading = Kies een nieuw wachtwoord
password-reset-button = Wachtwoord opslaan
password-account-heading = Je account
password-change-heading = Wachtwoord wijzigen
password-change-button = Wachtwoord wijzigen
password-email-heading = E-mailadres wijzigen
password-email-current = Je adres is { $email }.
password-email-new-label = Nieuw e-mailadres
password-email-button = Bevestigingslink versturen
password-delete-heading = Account verwijderen
password-delete-text = Hiermee worden je account en alles wat erbij is opgeslagen verwijderd. Dit kan niet ongedaan worden gemaakt.
password-delete-button = Mijn account verwijderen
password-changed = Je wachtwoord is gewijzigd. Je bent uitgelogd in je andere sessies.
password-email-sent = Als het nieuwe adres e-mail kan ontvangen, is er een bevestigingslink naartoe verzonden.
password-email-changed = Je e-mailadres is gewijzigd.
password-check-email = Als het adres e-mail kan ontvangen, is er een link naartoe verzonden. Open die om verder te gaan.
password-error-wrong = Het wachtwoord is niet juist.
password-error-none = Dit account heeft nog geen wachtwoord: stel er een in via de link die naar je adres is verzonden.
password-error-too-short = Het wachtwoord moet minstens { $min } tekens lang zijn.
password-error-too-long = Het wachtwoord mag hoogstens { $max } tekens lang zijn.
password-error-email = Vul een geldig e-mailadres in.
password-error-same-email = Dit is al je e-mailadres.
password-error-unverified = Bevestig eerst je e-mailadres: er is een nieuwe link naartoe verzonden.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Bevestig je e-mailadres voor { $host }
password-mail-verify-button = Adres bevestigen
password-mail-verify-note = Heb je geen account aangemaakt? Negeer deze e-mail dan: er gebeurt niets.
password-mail-reset-subject = Kies een nieuw wachtwoord voor { $host }
password-mail-reset-button = Nieuw wachtwoord kiezen
password-mail-reset-note = Heb je hier niet om gevraagd? Negeer deze e-mail dan: je wachtwoord blijft ongewijzigd.
password-mail-exists-subject = Er bestaat al een account voor dit adres bij { $host }
password-mail-exists-text = Iemand heeft geprobeerd een account aan te maken met je e-mailadres. Je hebt er al een: log in, of kies een nieuw wachtwoord via de link hieronder.
password-mail-exists-note = Was jij dit niet? Negeer deze e-mail dan: er is niets gewijzigd.
password-mail-confirm-subject = Bevestig je nieuwe e-mailadres voor { $host }
password-mail-confirm-button = Nieuw adres bevestigen
password-mail-confirm-note = Heb je hier niet om gevraagd? Negeer deze e-mail dan: er verandert niets.
password-mail-changing-subject = Je e-mailadres bij { $host } wordt gewijzigd
password-mail-changing-text = Iemand die in je account is ingelogd, heeft gevraagd het e-mailadres ervan te wijzigen in { $email }.
password-mail-changing-note = Was jij dit niet? Kies dan nu een nieuw wachtwoord: de wijziging gaat pas in zodra het nieuwe adres is bevestigd.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Elders ingelogd
account-sessions-text = Je account is ook ingelogd in de browsers en op de apparaten hieronder.
account-sessions-jwt-text = Log alle andere browsers en apparaten uit die bij je account zijn ingelogd.
account-sessions-end-others = Overal anders uitloggen
account-session-unknown-device = Onbekende browser
account-session-details = Netwerk { $ip }, laatst actief { $when }
account-session-active = Laatst actief { $when }
account-session-end = Dit apparaat uitloggen
account-sessions-ended = Die sessies zijn uitgelogd.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Verificatie in twee stappen
two-factor-text = Voer de code uit je authenticator-app in, of een van je herstelcodes.
two-factor-code-label = Code
two-factor-button = Verifiëren
two-factor-error = Die code klopt niet of is al gebruikt. Probeer de volgende.
two-factor-cancel = Annuleren en opnieuw inloggen

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = In deze browser niet meer om een code vragen
account-two-factor-heading = Tweestapsverificatie
account-two-factor-off-text = Bescherm je account naast je wachtwoord met codes uit een authenticator-app.
account-two-factor-setup-button = Instellen
account-two-factor-on-text = Aan. Resterende herstelcodes: { $count }
account-two-factor-codes-button = Nieuwe herstelcodes
account-two-factor-disable-label = Een code uit je app, een herstelcode of je wachtwoord
account-two-factor-disable-button = Uitzetten
account-two-factor-off-notice = Tweestapsverificatie staat uit.
account-two-factor-wrong = Dat is geen code uit je app, geen herstelcode en niet je wachtwoord.
two-factor-on-notice = Tweestapsverificatie staat aan.
two-factor-setup-heading = Tweestapsverificatie instellen
two-factor-setup-text = Scan de QR-code met je authenticator-app en vul daarna de code in die de app toont.
two-factor-setup-qr-alt = QR-code voor je authenticator-app
two-factor-setup-secret = Of voer deze sleutel in de app in:
two-factor-setup-open-app = Openen in de authenticator-app op dit apparaat
two-factor-setup-button = Aanzetten
two-factor-codes-heading = Je herstelcodes
two-factor-codes-text = Bewaar deze codes op een veilige plek: met elke code kun je één keer inloggen als je je authenticator-app kwijtraakt. Ze worden alleen nu getoond.
two-factor-codes-notice = Je nieuwe herstelcodes vervangen de oude.
two-factor-back-link = Terug naar je account

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Toegangssleutels
account-passkeys-text = Log in met je vingerafdruk, gezicht of schermvergrendeling in plaats van een wachtwoord.
account-passkey-add = Toegangssleutel toevoegen
account-passkey-unnamed = Toegangssleutel
account-passkey-details = Toegevoegd op { $when }
account-passkey-remove = Verwijderen
account-passkey-added = De toegangssleutel is toegevoegd.
account-passkey-removed = De toegangssleutel is verwijderd.
account-passkey-last = Die toegangssleutel is je enige manier om in te loggen: voeg eerst een andere toe.
