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
provider-password = Contraseña
signin-with-credentials = Iniciar sesión con credenciales
signin-with-email = Iniciar sesión con correo electrónico
signin-with-passkey = Iniciar sesión con una llave de acceso
signin-with-password = Iniciar sesión

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Contraseña
password-new-label = Nueva contraseña
password-current-label = Contraseña actual
password-name-label = Nombre (opcional)
password-forgot-link = ¿Olvidaste tu contraseña?
password-signup-link = Crear una cuenta
password-signin-link = ¿Ya tienes una cuenta? Inicia sesión
password-set-link = Establecer una contraseña
password-signup-heading = Crear una cuenta
password-signup-button = Crear cuenta
password-forgot-heading = Restablecer tu contraseña
password-forgot-text = Introduce tu dirección de correo electrónico: si está asociada a una cuenta, te enviaremos un enlace para elegir una nueva contraseña.
password-forgot-button = Enviar el enlace
password-reset-heading = Elige una nueva contraseña
password-reset-button = Guardar la contraseña
password-account-heading = Tu cuenta
password-change-heading = Cambiar tu contraseña
password-change-button = Cambiar la contraseña
password-email-heading = Cambiar tu dirección de correo electrónico
password-email-current = Tu dirección es { $email }.
password-email-new-label = Nueva dirección de correo electrónico
password-email-button = Enviar un enlace de confirmación
password-delete-heading = Eliminar tu cuenta
password-delete-text = Esto elimina tu cuenta y todo lo que se guarda con ella. No se puede deshacer.
password-delete-button = Eliminar mi cuenta
password-changed = Se cambió tu contraseña. Se cerraron tus otras sesiones.
password-email-sent = Si la nueva dirección puede recibirlo, se le ha enviado un enlace de confirmación.
password-email-changed = Se cambió tu dirección de correo electrónico.
password-check-email = Si la dirección puede recibir correo, se le ha enviado un enlace. Ábrelo para continuar.
password-error-wrong = La contraseña no es correcta.
password-error-none = Esta cuenta aún no tiene contraseña: establece una con el enlace que se ha enviado a tu dirección.
password-error-too-short = La contraseña debe tener al menos { $min } caracteres.
password-error-too-long = La contraseña debe tener como máximo { $max } caracteres.
password-error-email = Introduce una dirección de correo electrónico válida.
password-error-same-email = Esta ya es tu dirección de correo electrónico.
password-error-unverified = Primero confirma tu dirección de correo electrónico: se le ha enviado un nuevo enlace.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Confirma tu dirección de correo electrónico para { $host }
password-mail-verify-button = Confirmar la dirección
password-mail-verify-note = Si no creaste ninguna cuenta, ignora este correo: no pasará nada.
password-mail-reset-subject = Elige una nueva contraseña para { $host }
password-mail-reset-button = Elegir una nueva contraseña
password-mail-reset-note = Si no lo solicitaste, ignora este correo: tu contraseña seguirá igual.
password-mail-exists-subject = Ya existe una cuenta con esta dirección en { $host }
password-mail-exists-text = Alguien intentó crear una cuenta con tu dirección de correo electrónico. Ya tienes una: inicia sesión o elige una nueva contraseña con el enlace de abajo.
password-mail-exists-note = Si no fuiste tú, ignora este correo: no se cambió nada.
password-mail-confirm-subject = Confirma tu nueva dirección de correo electrónico para { $host }
password-mail-confirm-button = Confirmar la nueva dirección
password-mail-confirm-note = Si no lo solicitaste, ignora este correo: no cambiará nada.
password-mail-changing-subject = Tu dirección de correo electrónico en { $host } va a cambiar
password-mail-changing-text = Alguien que inició sesión en tu cuenta pidió cambiar su dirección de correo electrónico a { $email }.
password-mail-changing-note = Si no fuiste tú, elige una nueva contraseña ahora: el cambio solo se aplica cuando se confirma la nueva dirección.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Sesiones en otros lugares
account-sessions-text = Tu cuenta también tiene la sesión iniciada en los navegadores y dispositivos siguientes.
account-sessions-jwt-text = Cierra la sesión en todos los demás navegadores y dispositivos conectados a tu cuenta.
account-sessions-end-others = Cerrar sesión en todos los demás
account-session-unknown-device = Navegador desconocido
account-session-details = Red { $ip }, última actividad { $when }
account-session-active = Última actividad { $when }
account-session-end = Cerrar sesión en este dispositivo
account-sessions-ended = Se cerraron esas sesiones.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Verificación en dos pasos
two-factor-text = Introduce el código que muestra tu aplicación de autenticación o uno de tus códigos de recuperación.
two-factor-code-label = Código
two-factor-button = Verificar
two-factor-error = Ese código no es correcto o ya se usó. Prueba con el siguiente.
two-factor-cancel = Cancelar e iniciar sesión de nuevo

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = No volver a pedir un código en este navegador
account-two-factor-heading = Autenticación en dos pasos
account-two-factor-off-text = Protege tu cuenta con códigos de una aplicación de autenticación además de tu contraseña.
account-two-factor-setup-button = Configurar
account-two-factor-on-text = Activada. Códigos de recuperación restantes: { $count }
account-two-factor-codes-button = Nuevos códigos de recuperación
account-two-factor-disable-label = Un código de tu aplicación, un código de recuperación o tu contraseña
account-two-factor-disable-button = Desactivar
account-two-factor-off-notice = La autenticación en dos pasos está desactivada.
account-two-factor-wrong = Eso no es un código de tu aplicación, un código de recuperación ni tu contraseña.
two-factor-on-notice = La autenticación en dos pasos está activada.
two-factor-setup-heading = Configurar la autenticación en dos pasos
two-factor-setup-text = Escanea el código QR con tu aplicación de autenticación y luego introduce el código que muestra.
two-factor-setup-qr-alt = Código QR para tu aplicación de autenticación
two-factor-setup-secret = O introduce esta clave en la aplicación:
two-factor-setup-open-app = Abrir en la aplicación de autenticación de este dispositivo
two-factor-setup-button = Activar
two-factor-codes-heading = Tus códigos de recuperación
two-factor-codes-text = Guarda estos códigos en un lugar seguro: cada uno te permite iniciar sesión una vez si pierdes tu aplicación de autenticación. Solo se muestran ahora.
two-factor-codes-notice = Tus nuevos códigos de recuperación sustituyen a los anteriores.
two-factor-back-link = Volver a tu cuenta

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Llaves de acceso
account-passkeys-text = Inicia sesión con tu huella, tu cara o el bloqueo de pantalla en lugar de una contraseña.
account-passkey-add = Añadir una llave de acceso
account-passkey-unnamed = Llave de acceso
account-passkey-details = Añadida el { $when }
account-passkey-remove = Eliminar
account-passkey-added = Se añadió la llave de acceso.
account-passkey-removed = Se eliminó la llave de acceso.
account-passkey-last = Esa llave de acceso es tu única forma de iniciar sesión: añade otra primero.
