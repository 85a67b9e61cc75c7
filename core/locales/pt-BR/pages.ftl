# The built-in pages' and the sign-in email's texts in Portuguese (Brazil).
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = Entrar
title-signout = Sair
title-error = Erro
title-verify-request = Verificação de e-mail

## Sign-in page

signin-heading = Entrar
signin-with = Entrar com { $provider }
signin-email-label = E-mail
signin-email-placeholder = email@example.com
signin-passkey-hint = Tem uma chave de acesso? Deixe o e-mail em branco. É novo por aqui? Digite seu e-mail para criar uma conta com uma chave de acesso.

## The sign-in page's message for its `error` query parameter

signin-error-default = Não foi possível entrar.
signin-error-different-account = Tente entrar com uma conta diferente.
signin-error-account-not-linked = Para confirmar sua identidade, entre com a mesma conta que você usou originalmente.
signin-error-email-send = Não foi possível enviar o e-mail.
signin-error-credentials = Falha ao entrar. Verifique se os dados informados estão corretos.
signin-error-session-required = Entre para acessar esta página.
signin-error-missing-csrf = Seu formulário de login expirou. Tente novamente.

## Sign-out page

signout-heading = Sair
signout-question = Tem certeza de que deseja sair?
signout-button = Sair

## Error page

error-heading-default = Erro
error-heading-configuration = Erro no servidor
error-configuration-problem = Há um problema na configuração do servidor.
error-configuration-logs = Verifique os logs do servidor para mais informações.
error-heading-access-denied = Acesso negado
error-access-denied = Você não tem permissão para entrar.
error-heading-verification = Não foi possível entrar
error-verification-invalid = O link de acesso não é mais válido.
error-verification-used = Ele pode já ter sido usado ou ter expirado.
error-heading-rate-limited = Muitas tentativas
error-rate-limited-attempts = Houve muitas tentativas de login.
error-rate-limited-wait = Aguarde um pouco e tente novamente.
error-signin-button = Entrar

## Verify-request page (after an email link was sent)

verify-heading = Verifique seu e-mail
verify-text = Um link de acesso foi enviado para o seu endereço de e-mail.

## The sign-in email

email-subject = Entrar em { $host }
email-button = Entrar
email-ignore = Se você não solicitou este e-mail, pode ignorá-lo com segurança.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Credenciais
provider-email = E-mail
provider-passkey = Chave de acesso
signin-with-credentials = Entrar com credenciais
signin-with-email = Entrar com e-mail
signin-with-passkey = Entrar com uma chave de acesso

## The `message` of the JSON answers an API caller may show a user

api-configuration = Há um problema na configuração do servidor. Verifique os logs do servidor para mais informações.
api-overloaded = O servidor está ocupado. Tente novamente em instantes.
api-rate-limited = Muitas tentativas. Tente novamente mais tarde.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = A solicitação da chave de acesso foi cancelada ou expirou.
passkey-error-already-registered = Esta chave de acesso já está registrada.
passkey-error-unsupported = Este navegador ou dispositivo não pode usar chaves de acesso.
passkey-error-insecure = As chaves de acesso não estão disponíveis neste endereço.
passkey-error-unverified = Não foi possível verificar a chave de acesso.
passkey-error-account-exists = Este e-mail já tem uma conta: entre com a chave de acesso dela (deixe o e-mail vazio ou escolha a chave de acesso nas sugestões do campo de e-mail).
passkey-error-ip-address = As chaves de acesso precisam do nome de domínio deste site, não de um endereço IP.
passkey-error-use-localhost = As chaves de acesso precisam de um nome, não de um endereço IP: abra { $url }.
passkey-error-failed = Falha ao entrar com a chave de acesso ({ $error }).
