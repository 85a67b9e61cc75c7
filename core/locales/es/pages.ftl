# The built-in pages' and the sign-in email's texts in Spanish.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = Iniciar sesión
title-signout = Cerrar sesión
title-error = Error
title-verify-request = Verificación del correo electrónico

## Sign-in page

signin-heading = Iniciar sesión
signin-with = Iniciar sesión con { $provider }
signin-email-label = Correo electrónico
signin-email-placeholder = email@example.com
signin-passkey-hint = ¿Tienes una llave de acceso? Deja el correo electrónico vacío. ¿Eres nuevo? Introduce tu correo electrónico para crear una cuenta con una llave de acceso.

## The sign-in page's message for its `error` query parameter

signin-error-default = No se pudo iniciar sesión.
signin-error-different-account = Intenta iniciar sesión con otra cuenta.
signin-error-account-not-linked = Para confirmar tu identidad, inicia sesión con la misma cuenta que usaste originalmente.
signin-error-email-send = No se pudo enviar el correo electrónico.
signin-error-credentials = No se pudo iniciar sesión. Comprueba que los datos que introdujiste sean correctos.
signin-error-session-required = Inicia sesión para acceder a esta página.
signin-error-missing-csrf = Tu formulario de inicio de sesión caducó. Inténtalo de nuevo.

## Sign-out page

signout-heading = Cerrar sesión
signout-question = ¿Seguro que quieres cerrar sesión?
signout-button = Cerrar sesión

## Error page

error-heading-default = Error
error-heading-configuration = Error del servidor
error-configuration-problem = Hay un problema con la configuración del servidor.
error-configuration-logs = Consulta los registros del servidor para obtener más información.
error-heading-access-denied = Acceso denegado
error-access-denied = No tienes permiso para iniciar sesión.
error-heading-verification = No se pudo iniciar sesión
error-verification-invalid = El enlace de inicio de sesión ya no es válido.
error-verification-used = Es posible que ya se haya usado o que haya caducado.
error-heading-rate-limited = Demasiados intentos
error-rate-limited-attempts = Hubo demasiados intentos de inicio de sesión.
error-rate-limited-wait = Espera un momento y vuelve a intentarlo.
error-signin-button = Iniciar sesión

## Verify-request page (after an email link was sent)

verify-heading = Revisa tu correo electrónico
verify-text = Se ha enviado un enlace de inicio de sesión a tu dirección de correo electrónico.

## The sign-in email

email-subject = Inicia sesión en { $host }
email-button = Iniciar sesión
email-ignore = Si no solicitaste este correo, puedes ignorarlo sin problema.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Credenciales
provider-email = Correo electrónico
provider-passkey = Llave de acceso
signin-with-credentials = Iniciar sesión con credenciales
signin-with-email = Iniciar sesión con correo electrónico
signin-with-passkey = Iniciar sesión con una llave de acceso

## The `message` of the JSON answers an API caller may show a user

api-configuration = Hay un problema con la configuración del servidor. Consulta los registros del servidor para obtener más información.
api-overloaded = El servidor está ocupado. Vuelve a intentarlo en un momento.
api-rate-limited = Demasiados intentos. Vuelve a intentarlo más tarde.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = La solicitud de llave de acceso se canceló o se agotó el tiempo.
passkey-error-already-registered = Esta llave de acceso ya está registrada.
passkey-error-unsupported = Este navegador o dispositivo no puede usar llaves de acceso.
passkey-error-insecure = Las llaves de acceso no están disponibles en esta dirección.
passkey-error-unverified = No se pudo verificar la llave de acceso.
passkey-error-account-exists = Este correo electrónico ya tiene una cuenta: inicia sesión con su llave de acceso (deja el correo vacío o elige la llave de acceso en las sugerencias del campo de correo).
passkey-error-ip-address = Las llaves de acceso necesitan el nombre de dominio de este sitio, no una dirección IP.
passkey-error-use-localhost = Las llaves de acceso necesitan un nombre, no una dirección IP: abre { $url } en su lugar.
passkey-error-failed = Error al iniciar sesión con la llave de acceso ({ $error }).
