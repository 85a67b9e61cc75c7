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
signin-with-credentials = Sign in with Credentials
signin-with-email = Sign in with Email
signin-with-passkey = Sign in with Passkey

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
