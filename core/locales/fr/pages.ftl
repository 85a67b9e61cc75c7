# The built-in pages' and the sign-in email's texts in French.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = Connexion
title-signout = Déconnexion
title-error = Erreur
title-verify-request = Vérification de l’adresse e-mail

## Sign-in page

signin-heading = Se connecter
signin-with = Se connecter avec { $provider }
signin-email-label = Adresse e-mail
signin-email-placeholder = email@example.com
signin-passkey-hint = Vous avez une clé d’accès ? Laissez l’adresse e-mail vide. Nouveau ici ? Saisissez votre adresse e-mail pour créer un compte avec une clé d’accès.

## The sign-in page's message for its `error` query parameter

signin-error-default = Impossible de se connecter.
signin-error-different-account = Essayez de vous connecter avec un autre compte.
signin-error-account-not-linked = Pour confirmer votre identité, connectez-vous avec le compte que vous avez utilisé à l’origine.
signin-error-email-send = L’e-mail n’a pas pu être envoyé.
signin-error-credentials = La connexion a échoué. Vérifiez que les informations saisies sont correctes.
signin-error-session-required = Veuillez vous connecter pour accéder à cette page.
signin-error-missing-csrf = Votre formulaire de connexion a expiré. Veuillez réessayer.

## Sign-out page

signout-heading = Se déconnecter
signout-question = Voulez-vous vraiment vous déconnecter ?
signout-button = Se déconnecter

## Error page

error-heading-default = Erreur
error-heading-configuration = Erreur du serveur
error-configuration-problem = La configuration du serveur présente un problème.
error-configuration-logs = Consultez les journaux du serveur pour en savoir plus.
error-heading-access-denied = Accès refusé
error-access-denied = Vous n’avez pas l’autorisation de vous connecter.
error-heading-verification = Connexion impossible
error-verification-invalid = Le lien de connexion n’est plus valide.
error-verification-used = Il a peut-être déjà été utilisé ou il a expiré.
error-heading-rate-limited = Trop de tentatives
error-rate-limited-attempts = Il y a eu trop de tentatives de connexion.
error-rate-limited-wait = Patientez un peu, puis réessayez.
error-signin-button = Se connecter

## Verify-request page (after an email link was sent)

verify-heading = Consultez vos e-mails
verify-text = Un lien de connexion a été envoyé à votre adresse e-mail.

## The sign-in email

email-subject = Connexion à { $host }
email-button = Se connecter
email-ignore = Si vous n’avez pas demandé cet e-mail, vous pouvez l’ignorer sans risque.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Identifiants
provider-email = E-mail
provider-passkey = Clé d’accès
signin-with-credentials = Se connecter avec ses identifiants
signin-with-email = Se connecter par e-mail
signin-with-passkey = Se connecter avec une clé d’accès

## The `message` of the JSON answers an API caller may show a user

api-configuration = La configuration du serveur présente un problème. Consultez les journaux du serveur pour en savoir plus.
api-overloaded = Le serveur est occupé. Réessayez dans un instant.
api-rate-limited = Trop de tentatives. Réessayez plus tard.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = La demande de clé d’accès a été annulée ou a expiré.
passkey-error-already-registered = Cette clé d’accès est déjà enregistrée.
passkey-error-unsupported = Ce navigateur ou cet appareil ne peut pas utiliser de clés d’accès.
passkey-error-insecure = Les clés d’accès ne sont pas disponibles à cette adresse.
passkey-error-unverified = La clé d’accès n’a pas pu être vérifiée.
passkey-error-account-exists = Cette adresse e-mail a déjà un compte : connectez-vous avec sa clé d’accès (laissez l’e-mail vide, ou choisissez la clé d’accès dans les suggestions du champ e-mail).
passkey-error-ip-address = Les clés d’accès exigent le nom de domaine de ce site, pas une adresse IP.
passkey-error-use-localhost = Les clés d’accès exigent un nom, pas une adresse IP : ouvrez plutôt { $url }.
passkey-error-failed = La connexion par clé d’accès a échoué ({ $error }).
