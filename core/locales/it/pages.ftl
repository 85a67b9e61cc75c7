# The built-in pages' and the sign-in email's texts in Italian.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = Accedi
title-signout = Esci
title-error = Errore
title-verify-request = Verifica dell’email

## Sign-in page

signin-heading = Accedi
signin-with = Accedi con { $provider }
signin-email-label = Email
signin-email-placeholder = email@example.com
signin-passkey-hint = Hai una passkey? Lascia vuoto il campo email. Sei nuovo? Inserisci la tua email per creare un account con una passkey.

## The sign-in page's message for its `error` query parameter

signin-error-default = Impossibile accedere.
signin-error-different-account = Prova ad accedere con un altro account.
signin-error-account-not-linked = Per confermare la tua identità, accedi con lo stesso account che hai usato in origine.
signin-error-email-send = Non è stato possibile inviare l’email.
signin-error-credentials = Accesso non riuscito. Verifica che i dati inseriti siano corretti.
signin-error-session-required = Accedi per visualizzare questa pagina.
signin-error-missing-csrf = Il modulo di accesso è scaduto. Riprova.

## Sign-out page

signout-heading = Esci
signout-question = Vuoi davvero uscire?
signout-button = Esci

## Error page

error-heading-default = Errore
error-heading-configuration = Errore del server
error-configuration-problem = C’è un problema nella configurazione del server.
error-configuration-logs = Controlla i log del server per maggiori informazioni.
error-heading-access-denied = Accesso negato
error-access-denied = Non hai l’autorizzazione per accedere.
error-heading-verification = Impossibile accedere
error-verification-invalid = Il link di accesso non è più valido.
error-verification-used = Potrebbe essere già stato usato o essere scaduto.
error-heading-rate-limited = Troppi tentativi
error-rate-limited-attempts = Ci sono stati troppi tentativi di accesso.
error-rate-limited-wait = Attendi un momento, poi riprova.
error-signin-button = Accedi

## Verify-request page (after an email link was sent)

verify-heading = Controlla la tua email
verify-text = Un link di accesso è stato inviato al tuo indirizzo email.

## The sign-in email

email-subject = Accedi a { $host }
email-button = Accedi
email-ignore = Se non hai richiesto questa email, puoi ignorarla senza problemi.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Credenziali
provider-email = Email
provider-passkey = Passkey
signin-with-credentials = Accedi con le credenziali
signin-with-email = Accedi con l’email
signin-with-passkey = Accedi con una passkey

## The `message` of the JSON answers an API caller may show a user

api-configuration = C’è un problema nella configurazione del server. Controlla i log del server per maggiori informazioni.
api-overloaded = Il server è occupato. Riprova tra un momento.
api-rate-limited = Troppi tentativi. Riprova più tardi.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = La richiesta della passkey è stata annullata o è scaduta.
passkey-error-already-registered = Questa passkey è già registrata.
passkey-error-unsupported = Questo browser o dispositivo non può usare le passkey.
passkey-error-insecure = Le passkey non sono disponibili a questo indirizzo.
passkey-error-unverified = Impossibile verificare la passkey.
passkey-error-account-exists = Questa email ha già un account: accedi con la sua passkey (lascia vuoto il campo email o scegli la passkey tra i suggerimenti del campo email).
passkey-error-ip-address = Le passkey richiedono il nome di dominio di questo sito, non un indirizzo IP.
passkey-error-use-localhost = Le passkey richiedono un nome, non un indirizzo IP: apri invece { $url }.
passkey-error-failed = Accesso con passkey non riuscito ({ $error }).
