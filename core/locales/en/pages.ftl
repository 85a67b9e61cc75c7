# The built-in pages' and the sign-in email's texts, in English: the
# reference catalogue. Every other catalogue has exactly these messages
# (a test checks it). Placeables: $provider (a provider's name), $host (the
# site's host and port).

## Page titles (<title>)

title-signin = Sign In
title-signout = Sign Out
title-error = Error
title-verify-request = Verify Request

## Sign-in page

signin-heading = Sign in
signin-with = Sign in with { $provider }
signin-email-label = Email
signin-email-placeholder = email@example.com
signin-passkey-hint = Have a passkey? Leave the email empty. New here? Enter your email to create an account with a passkey.

## The sign-in page's message for its `error` query parameter

signin-error-default = Unable to sign in.
signin-error-different-account = Try signing in with a different account.
signin-error-account-not-linked = To confirm your identity, sign in with the same account you used originally.
signin-error-email-send = The e-mail could not be sent.
signin-error-credentials = Sign in failed. Check the details you provided are correct.
signin-error-session-required = Please sign in to access this page.
signin-error-missing-csrf = Your sign-in form expired. Please try again.

## Sign-out page

signout-heading = Sign out
signout-question = Are you sure you want to sign out?
signout-button = Sign out

## Error page

error-heading-default = Error
error-heading-configuration = Server error
error-configuration-problem = There is a problem with the server configuration.
error-configuration-logs = Check the server logs for more information.
error-heading-access-denied = Access Denied
error-access-denied = You do not have permission to sign in.
error-heading-verification = Unable to sign in
error-verification-invalid = The sign in link is no longer valid.
error-verification-used = It may have been used already or it may have expired.
error-heading-rate-limited = Too many attempts
error-rate-limited-attempts = There were too many sign-in attempts.
error-rate-limited-wait = Wait a little, then try again.
error-signin-button = Sign in

## Verify-request page (after an email link was sent)

verify-heading = Check your email
verify-text = A sign in link has been sent to your email address.

## The sign-in email

email-subject = Sign in to { $host }
email-button = Sign in
email-ignore = If you did not request this email you can safely ignore it.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Credentials
provider-email = Email
provider-passkey = Passkey
provider-password = Password
signin-with-credentials = Sign in with Credentials
signin-with-email = Sign in with Email
signin-with-passkey = Sign in with Passkey
signin-with-password = Sign in

## The `message` of the JSON answers an API caller may show a user

api-configuration = There was a problem with the server configuration. Check the server logs for more information.
api-overloaded = The server is busy. Try again in a moment.
api-rate-limited = Too many attempts. Try again later.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = The passkey request was cancelled or timed out.
passkey-error-already-registered = This passkey is already registered.
passkey-error-unsupported = This browser or device cannot use passkeys.
passkey-error-insecure = Passkeys are not available on this address.
passkey-error-unverified = The passkey could not be verified.
passkey-error-account-exists = This email already has an account: sign in with its passkey (leave the email empty, or pick the passkey in the email field's suggestions).
passkey-error-ip-address = Passkeys need this site's domain name, not an IP address.
passkey-error-use-localhost = Passkeys need a name, not an IP address: open { $url } instead.
passkey-error-failed = Passkey sign-in failed ({ $error }).

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Password
password-new-label = New password
password-current-label = Current password
password-name-label = Name (optional)
password-forgot-link = Forgot your password?
password-signup-link = Create an account
password-signin-link = Already have an account? Sign in
password-set-link = Set a password
password-signup-heading = Create an account
password-signup-button = Create account
password-forgot-heading = Reset your password
password-forgot-text = Enter your email address: if it has an account, we will send it a link to choose a new password.
password-forgot-button = Send the link
password-reset-heading = Choose a new password
password-reset-button = Save the password
password-account-heading = Your account
password-change-heading = Change your password
password-change-button = Change the password
password-email-heading = Change your email address
password-email-current = Your address is { $email }.
password-email-new-label = New email address
password-email-button = Send a confirmation link
password-delete-heading = Delete your account
password-delete-text = This deletes your account and everything kept with it. It cannot be undone.
password-delete-button = Delete my account
password-changed = Your password was changed. Your other sessions were signed out.
password-email-sent = If the new address can receive it, a confirmation link was sent there.
password-email-changed = Your email address was changed.
password-check-email = If the address can receive mail, a link has been sent to it. Open it to go on.
password-error-wrong = The password is not correct.
password-error-none = This account has no password yet: set one with a link sent to your address.
password-error-too-short = The password must be at least { $min } characters long.
password-error-too-long = The password must be at most { $max } characters long.
password-error-email = Enter a valid email address.
password-error-same-email = This is already your email address.
password-error-unverified = Confirm your email address first: a new link has been sent to it.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Confirm your email address for { $host }
password-mail-verify-button = Confirm the address
password-mail-verify-note = If you did not create an account, ignore this email: nothing happens.
password-mail-reset-subject = Choose a new password for { $host }
password-mail-reset-button = Choose a new password
password-mail-reset-note = If you did not ask for this, ignore this email: your password stays as it is.
password-mail-exists-subject = An account already exists for this address on { $host }
password-mail-exists-text = Someone tried to create an account with your email address. You have one already: sign in, or choose a new password with the link below.
password-mail-exists-note = If it was not you, ignore this email: nothing changed.
password-mail-confirm-subject = Confirm your new email address for { $host }
password-mail-confirm-button = Confirm the new address
password-mail-confirm-note = If you did not ask for this, ignore this email: nothing changes.
password-mail-changing-subject = Your email address on { $host } is changing
password-mail-changing-text = Someone signed in to your account asked to change its email address to { $email }.
password-mail-changing-note = If it was not you, choose a new password now: the change only happens once the new address is confirmed.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Signed in elsewhere
account-sessions-text = Your account is also signed in on the browsers and devices below.
account-sessions-jwt-text = Sign out every other browser and device signed in to your account.
account-sessions-end-others = Sign out everywhere else
account-session-unknown-device = Unknown browser
account-session-details = Network { $ip }, last active { $when }
account-session-active = Last active { $when }
account-session-end = Sign out this device
account-sessions-ended = Those sessions were signed out.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Two-step verification
two-factor-text = Enter the code your authenticator app shows, or one of your recovery codes.
two-factor-code-label = Code
two-factor-button = Verify
two-factor-error = That code is not right, or it was used already. Try the next one.
two-factor-cancel = Cancel and sign in again

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = Don't ask for a code again in this browser
account-two-factor-heading = Two-factor authentication
account-two-factor-off-text = Protect your account with codes from an authenticator app as well as your password.
account-two-factor-setup-button = Set up
account-two-factor-on-text = On. Recovery codes left: { $count }
account-two-factor-codes-button = New recovery codes
account-two-factor-disable-label = A code from your app, a recovery code or your password
account-two-factor-disable-button = Turn off
account-two-factor-off-notice = Two-factor authentication is off.
account-two-factor-wrong = That is not a code from your app, a recovery code or your password.
two-factor-on-notice = Two-factor authentication is on.
two-factor-setup-heading = Set up two-factor authentication
two-factor-setup-text = Scan the QR code with your authenticator app, then enter the code it shows.
two-factor-setup-qr-alt = QR code for your authenticator app
two-factor-setup-secret = Or enter this key in the app:
two-factor-setup-open-app = Open in the authenticator app on this device
two-factor-setup-button = Turn on
two-factor-codes-heading = Your recovery codes
two-factor-codes-text = Keep these codes somewhere safe: each one signs you in once if you lose your authenticator app. They are shown only now.
two-factor-codes-notice = Your new recovery codes replace the old ones.
two-factor-back-link = Back to your account

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Passkeys
account-passkeys-text = Sign in with your fingerprint, face or screen lock instead of a password.
account-passkey-add = Add a passkey
account-passkey-unnamed = Passkey
account-passkey-details = Added { $when }
account-passkey-remove = Remove
account-passkey-added = The passkey was added.
account-passkey-removed = The passkey was removed.
account-passkey-last = That passkey is your only way to sign in: add another way first.
