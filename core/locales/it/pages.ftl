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
provider-password = Password
signin-with-credentials = Accedi con le credenziali
signin-with-email = Accedi con l’email
signin-with-passkey = Accedi con una passkey
signin-with-password = Accedi

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Password
password-new-label = Nuova password
password-current-label = Password attuale
password-name-label = Nome (facoltativo)
password-forgot-link = Hai dimenticato la password?
password-signup-link = Crea un account
password-signin-link = Hai già un account? Accedi
password-set-link = Imposta una password
password-signup-heading = Crea un account
password-signup-button = Crea account
password-forgot-heading = Reimposta la password
password-forgot-text = Inserisci il tuo indirizzo email: se è associato a un account, ti invieremo un link per scegliere una nuova password.
password-forgot-button = Invia il link
password-reset-heading = Scegli una nuova password
password-reset-button = Salva la password
password-account-heading = Il tuo account
password-change-heading = Cambia la password
password-change-button = Cambia la password
password-email-heading = Cambia il tuo indirizzo email
password-email-current = Il tuo indirizzo è { $email }.
password-email-new-label = Nuovo indirizzo email
password-email-button = Invia un link di conferma
password-delete-heading = Elimina il tuo account
password-delete-text = Questa operazione elimina il tuo account e tutto ciò che vi è conservato. Non può essere annullata.
password-delete-button = Elimina il mio account
password-changed = La tua password è stata cambiata. Le altre sessioni sono state disconnesse.
password-email-sent = Se il nuovo indirizzo può riceverlo, gli è stato inviato un link di conferma.
password-email-changed = Il tuo indirizzo email è stato cambiato.
password-check-email = Se l’indirizzo può ricevere email, gli è stato inviato un link. Aprilo per continuare.
password-error-wrong = La password non è corretta.
password-error-none = Questo account non ha ancora una password: impostane una con il link inviato al tuo indirizzo.
password-error-too-short = La password deve contenere almeno { $min } caratteri.
password-error-too-long = La password può contenere al massimo { $max } caratteri.
password-error-email = Inserisci un indirizzo email valido.
password-error-same-email = Questo è già il tuo indirizzo email.
password-error-unverified = Conferma prima il tuo indirizzo email: ti è stato inviato un nuovo link.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Conferma il tuo indirizzo email per { $host }
password-mail-verify-button = Conferma l’indirizzo
password-mail-verify-note = Se non hai creato un account, ignora questa email: non succederà nulla.
password-mail-reset-subject = Scegli una nuova password per { $host }
password-mail-reset-button = Scegli una nuova password
password-mail-reset-note = Se non l’hai richiesto, ignora questa email: la tua password resta invariata.
password-mail-exists-subject = Esiste già un account per questo indirizzo su { $host }
password-mail-exists-text = Qualcuno ha provato a creare un account con il tuo indirizzo email. Ne hai già uno: accedi oppure scegli una nuova password con il link qui sotto.
password-mail-exists-note = Se non sei stato tu, ignora questa email: non è cambiato nulla.
password-mail-confirm-subject = Conferma il tuo nuovo indirizzo email per { $host }
password-mail-confirm-button = Conferma il nuovo indirizzo
password-mail-confirm-note = Se non l’hai richiesto, ignora questa email: non cambierà nulla.
password-mail-changing-subject = Il tuo indirizzo email su { $host } sta per cambiare
password-mail-changing-text = Qualcuno che ha effettuato l’accesso al tuo account ha chiesto di cambiarne l’indirizzo email in { $email }.
password-mail-changing-note = Se non sei stato tu, scegli subito una nuova password: la modifica avviene solo dopo la conferma del nuovo indirizzo.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Accessi da altri dispositivi
account-sessions-text = Il tuo account ha un accesso attivo anche nei browser e sui dispositivi qui sotto.
account-sessions-jwt-text = Disconnetti tutti gli altri browser e dispositivi collegati al tuo account.
account-sessions-end-others = Esci da tutti gli altri
account-session-unknown-device = Browser sconosciuto
account-session-details = Rete { $ip }, ultima attività { $when }
account-session-active = Ultima attività { $when }
account-session-end = Disconnetti questo dispositivo
account-sessions-ended = Quelle sessioni sono state disconnesse.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Verifica in due passaggi
two-factor-text = Inserisci il codice mostrato dalla tua app di autenticazione o uno dei tuoi codici di recupero.
two-factor-code-label = Codice
two-factor-button = Verifica
two-factor-error = Il codice non è corretto o è già stato usato. Prova con il successivo.
two-factor-cancel = Annulla e accedi di nuovo

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = Non chiedere più un codice in questo browser
account-two-factor-heading = Autenticazione a due fattori
account-two-factor-off-text = Proteggi il tuo account con i codici di un’app di autenticazione oltre alla password.
account-two-factor-setup-button = Configura
account-two-factor-on-text = Attiva. Codici di recupero rimasti: { $count }
account-two-factor-codes-button = Nuovi codici di recupero
account-two-factor-disable-label = Un codice dell’app, un codice di recupero o la tua password
account-two-factor-disable-button = Disattiva
account-two-factor-off-notice = L’autenticazione a due fattori è disattivata.
account-two-factor-wrong = Non è un codice dell’app, né un codice di recupero, né la tua password.
two-factor-on-notice = L’autenticazione a due fattori è attiva.
two-factor-setup-heading = Configura l’autenticazione a due fattori
two-factor-setup-text = Scansiona il codice QR con l’app di autenticazione, poi inserisci il codice che mostra.
two-factor-setup-qr-alt = Codice QR per la tua app di autenticazione
two-factor-setup-secret = Oppure inserisci questa chiave nell’app:
two-factor-setup-open-app = Apri nell’app di autenticazione di questo dispositivo
two-factor-setup-button = Attiva
two-factor-codes-heading = I tuoi codici di recupero
two-factor-codes-text = Conserva questi codici in un luogo sicuro: ognuno ti fa accedere una volta se perdi l’app di autenticazione. Sono mostrati solo ora.
two-factor-codes-notice = I nuovi codici di recupero sostituiscono i precedenti.
two-factor-back-link = Torna al tuo account

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Passkey
account-passkeys-text = Accedi con l’impronta, il volto o il blocco schermo invece di una password.
account-passkey-add = Aggiungi una passkey
account-passkey-unnamed = Passkey
account-passkey-details = Aggiunta il { $when }
account-passkey-remove = Rimuovi
account-passkey-added = La passkey è stata aggiunta.
account-passkey-removed = La passkey è stata rimossa.
account-passkey-last = Quella passkey è il tuo unico modo di accedere: aggiungine prima un altro.
