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
provider-password = Mot de passe
signin-with-credentials = Se connecter avec ses identifiants
signin-with-email = Se connecter par e-mail
signin-with-passkey = Se connecter avec une clé d’accès
signin-with-password = Se connecter

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Mot de passe
password-new-label = Nouveau mot de passe
password-current-label = Mot de passe actuel
password-name-label = Nom (facultatif)
password-forgot-link = Mot de passe oublié ?
password-signup-link = Créer un compte
password-signin-link = Vous avez déjà un compte ? Connectez-vous
password-set-link = Définir un mot de passe
password-signup-heading = Créer un compte
password-signup-button = Créer le compte
password-forgot-heading = Réinitialiser votre mot de passe
password-forgot-text = Saisissez votre adresse e-mail : si un compte y est associé, nous y enverrons un lien pour choisir un nouveau mot de passe.
password-forgot-button = Envoyer le lien
password-reset-heading = Choisir un nouveau mot de passe
password-reset-button = Enregistrer le mot de passe
password-account-heading = Votre compte
password-change-heading = Modifier votre mot de passe
password-change-button = Modifier le mot de passe
password-email-heading = Modifier votre adresse e-mail
password-email-current = Votre adresse est { $email }.
password-email-new-label = Nouvelle adresse e-mail
password-email-button = Envoyer un lien de confirmation
password-delete-heading = Supprimer votre compte
password-delete-text = Cette action supprime votre compte et tout ce qui y est conservé. Elle est irréversible.
password-delete-button = Supprimer mon compte
password-changed = Votre mot de passe a été modifié. Vos autres sessions ont été déconnectées.
password-email-sent = Si la nouvelle adresse peut le recevoir, un lien de confirmation y a été envoyé.
password-email-changed = Votre adresse e-mail a été modifiée.
password-check-email = Si l’adresse peut recevoir des e-mails, un lien y a été envoyé. Ouvrez-le pour continuer.
password-error-wrong = Le mot de passe est incorrect.
password-error-none = Ce compte n’a pas encore de mot de passe : définissez-en un avec le lien envoyé à votre adresse.
password-error-too-short = Le mot de passe doit comporter au moins { $min } caractères.
password-error-too-long = Le mot de passe doit comporter au plus { $max } caractères.
password-error-email = Saisissez une adresse e-mail valide.
password-error-same-email = C’est déjà votre adresse e-mail.
password-error-unverified = Confirmez d’abord votre adresse e-mail : un nouveau lien y a été envoyé.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Confirmez votre adresse e-mail pour { $host }
password-mail-verify-button = Confirmer l’adresse
password-mail-verify-note = Si vous n’avez pas créé de compte, ignorez cet e-mail : il ne se passera rien.
password-mail-reset-subject = Choisissez un nouveau mot de passe pour { $host }
password-mail-reset-button = Choisir un nouveau mot de passe
password-mail-reset-note = Si vous n’avez rien demandé, ignorez cet e-mail : votre mot de passe reste inchangé.
password-mail-exists-subject = Un compte existe déjà pour cette adresse sur { $host }
password-mail-exists-text = Quelqu’un a essayé de créer un compte avec votre adresse e-mail. Vous en avez déjà un : connectez-vous, ou choisissez un nouveau mot de passe avec le lien ci-dessous.
password-mail-exists-note = Si ce n’était pas vous, ignorez cet e-mail : rien n’a été modifié.
password-mail-confirm-subject = Confirmez votre nouvelle adresse e-mail pour { $host }
password-mail-confirm-button = Confirmer la nouvelle adresse
password-mail-confirm-note = Si vous n’avez rien demandé, ignorez cet e-mail : rien ne changera.
password-mail-changing-subject = Votre adresse e-mail sur { $host } va changer
password-mail-changing-text = Une personne connectée à votre compte a demandé à remplacer son adresse e-mail par { $email }.
password-mail-changing-note = Si ce n’était pas vous, choisissez dès maintenant un nouveau mot de passe : le changement n’a lieu qu’une fois la nouvelle adresse confirmée.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Connecté ailleurs
account-sessions-text = Votre compte est aussi connecté sur les navigateurs et appareils ci-dessous.
account-sessions-jwt-text = Déconnectez tous les autres navigateurs et appareils connectés à votre compte.
account-sessions-end-others = Se déconnecter partout ailleurs
account-session-unknown-device = Navigateur inconnu
account-session-details = Réseau { $ip }, dernière activité { $when }
account-session-active = Dernière activité { $when }
account-session-end = Déconnecter cet appareil
account-sessions-ended = Ces sessions ont été déconnectées.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Validation en deux étapes
two-factor-text = Saisissez le code affiché par votre application d’authentification, ou l’un de vos codes de récupération.
two-factor-code-label = Code
two-factor-button = Valider
two-factor-error = Ce code n’est pas correct ou a déjà été utilisé. Essayez le suivant.
two-factor-cancel = Annuler et se reconnecter

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = Ne plus demander de code dans ce navigateur
account-two-factor-heading = Authentification à deux facteurs
account-two-factor-off-text = Protégez votre compte avec des codes d’une application d’authentification en plus de votre mot de passe.
account-two-factor-setup-button = Configurer
account-two-factor-on-text = Activée. Codes de récupération restants : { $count }
account-two-factor-codes-button = Nouveaux codes de récupération
account-two-factor-disable-label = Un code de votre application, un code de récupération ou votre mot de passe
account-two-factor-disable-button = Désactiver
account-two-factor-off-notice = L’authentification à deux facteurs est désactivée.
account-two-factor-wrong = Ce n’est ni un code de votre application, ni un code de récupération, ni votre mot de passe.
two-factor-on-notice = L’authentification à deux facteurs est activée.
two-factor-setup-heading = Configurer l’authentification à deux facteurs
two-factor-setup-text = Scannez le code QR avec votre application d’authentification, puis saisissez le code qu’elle affiche.
two-factor-setup-qr-alt = Code QR pour votre application d’authentification
two-factor-setup-secret = Ou saisissez cette clé dans l’application :
two-factor-setup-open-app = Ouvrir dans l’application d’authentification de cet appareil
two-factor-setup-button = Activer
two-factor-codes-heading = Vos codes de récupération
two-factor-codes-text = Conservez ces codes en lieu sûr : chacun vous connecte une fois si vous perdez votre application d’authentification. Ils ne sont affichés que maintenant.
two-factor-codes-notice = Vos nouveaux codes de récupération remplacent les anciens.
two-factor-back-link = Retour à votre compte

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Clés d’accès
account-passkeys-text = Connectez-vous avec votre empreinte, votre visage ou le verrouillage de l’écran au lieu d’un mot de passe.
account-passkey-add = Ajouter une clé d’accès
account-passkey-unnamed = Clé d’accès
account-passkey-details = Ajoutée le { $when }
account-passkey-remove = Supprimer
account-passkey-added = La clé d’accès a été ajoutée.
account-passkey-removed = La clé d’accès a été supprimée.
account-passkey-last = Cette clé d’accès est votre seul moyen de connexion : ajoutez-en un autre d’abord.
