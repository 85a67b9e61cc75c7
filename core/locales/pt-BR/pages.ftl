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
provider-password = Senha
signin-with-credentials = Entrar com credenciais
signin-with-email = Entrar com e-mail
signin-with-passkey = Entrar com uma chave de acesso
signin-with-password = Entrar

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Senha
password-new-label = Nova senha
password-current-label = Senha atual
password-name-label = Nome (opcional)
password-forgot-link = Esqueceu sua senha?
password-signup-link = Criar uma conta
password-signin-link = Já tem uma conta? Entrar
password-set-link = Definir uma senha
password-signup-heading = Criar uma conta
password-signup-button = Criar conta
password-forgot-heading = Redefinir sua senha
password-forgot-text = Digite seu endereço de e-mail: se houver uma conta com ele, enviaremos um link para você escolher uma nova senha.
password-forgot-button = Enviar o link
password-reset-heading = Escolha uma nova senha
password-reset-button = Salvar a senha
password-account-heading = Sua conta
password-change-heading = Alterar sua senha
password-change-button = Alterar a senha
password-email-heading = Alterar seu endereço de e-mail
password-email-current = Seu endereço é { $email }.
password-email-new-label = Novo endereço de e-mail
password-email-button = Enviar um link de confirmação
password-delete-heading = Excluir sua conta
password-delete-text = Isso exclui sua conta e tudo o que está guardado com ela. Não é possível desfazer.
password-delete-button = Excluir minha conta
password-changed = Sua senha foi alterada. Suas outras sessões foram encerradas.
password-email-sent = Se o novo endereço puder recebê-lo, um link de confirmação foi enviado para ele.
password-email-changed = Seu endereço de e-mail foi alterado.
password-check-email = Se o endereço puder receber e-mails, um link foi enviado para ele. Abra-o para continuar.
password-error-wrong = A senha não está correta.
password-error-none = Esta conta ainda não tem senha: defina uma com o link enviado para o seu endereço.
password-error-too-short = A senha deve ter pelo menos { $min } caracteres.
password-error-too-long = A senha deve ter no máximo { $max } caracteres.
password-error-email = Digite um endereço de e-mail válido.
password-error-same-email = Este já é o seu endereço de e-mail.
password-error-unverified = Primeiro confirme seu endereço de e-mail: um novo link foi enviado para ele.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Confirme seu endereço de e-mail para { $host }
password-mail-verify-button = Confirmar o endereço
password-mail-verify-note = Se você não criou uma conta, ignore este e-mail: nada acontecerá.
password-mail-reset-subject = Escolha uma nova senha para { $host }
password-mail-reset-button = Escolher uma nova senha
password-mail-reset-note = Se você não solicitou isso, ignore este e-mail: sua senha continua a mesma.
password-mail-exists-subject = Já existe uma conta para este endereço em { $host }
password-mail-exists-text = Alguém tentou criar uma conta com o seu endereço de e-mail. Você já tem uma: entre ou escolha uma nova senha com o link abaixo.
password-mail-exists-note = Se não foi você, ignore este e-mail: nada foi alterado.
password-mail-confirm-subject = Confirme seu novo endereço de e-mail para { $host }
password-mail-confirm-button = Confirmar o novo endereço
password-mail-confirm-note = Se você não solicitou isso, ignore este e-mail: nada será alterado.
password-mail-changing-subject = Seu endereço de e-mail em { $host } está sendo alterado
password-mail-changing-text = Alguém conectado à sua conta pediu para alterar o endereço de e-mail dela para { $email }.
password-mail-changing-note = Se não foi você, escolha uma nova senha agora: a alteração só acontece depois que o novo endereço for confirmado.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Conectado em outros lugares
account-sessions-text = Sua conta também está conectada nos navegadores e dispositivos abaixo.
account-sessions-jwt-text = Encerre a sessão em todos os outros navegadores e dispositivos conectados à sua conta.
account-sessions-end-others = Sair de todos os outros
account-session-unknown-device = Navegador desconhecido
account-session-details = Rede { $ip }, última atividade { $when }
account-session-active = Última atividade { $when }
account-session-end = Sair deste dispositivo
account-sessions-ended = Essas sessões foram encerradas.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Verificação em duas etapas
two-factor-text = Digite o código que seu aplicativo autenticador mostra ou um dos seus códigos de recuperação.
two-factor-code-label = Código
two-factor-button = Verificar
two-factor-error = Esse código não está correto ou já foi usado. Tente o próximo.
two-factor-cancel = Cancelar e entrar novamente

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = Não pedir mais um código neste navegador
account-two-factor-heading = Autenticação em dois fatores
account-two-factor-off-text = Proteja sua conta com códigos de um aplicativo autenticador, além da senha.
account-two-factor-setup-button = Configurar
account-two-factor-on-text = Ativada. Códigos de recuperação restantes: { $count }
account-two-factor-codes-button = Novos códigos de recuperação
account-two-factor-disable-label = Um código do aplicativo, um código de recuperação ou sua senha
account-two-factor-disable-button = Desativar
account-two-factor-off-notice = A autenticação em dois fatores está desativada.
account-two-factor-wrong = Isso não é um código do aplicativo, um código de recuperação nem sua senha.
two-factor-on-notice = A autenticação em dois fatores está ativada.
two-factor-setup-heading = Configurar a autenticação em dois fatores
two-factor-setup-text = Escaneie o código QR com seu aplicativo autenticador e digite o código que ele mostra.
two-factor-setup-qr-alt = Código QR para seu aplicativo autenticador
two-factor-setup-secret = Ou digite esta chave no aplicativo:
two-factor-setup-open-app = Abrir no aplicativo autenticador deste dispositivo
two-factor-setup-button = Ativar
two-factor-codes-heading = Seus códigos de recuperação
two-factor-codes-text = Guarde estes códigos em um lugar seguro: cada um permite entrar uma vez se você perder o aplicativo autenticador. Eles só são mostrados agora.
two-factor-codes-notice = Seus novos códigos de recuperação substituem os antigos.
two-factor-back-link = Voltar para sua conta

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Chaves de acesso
account-passkeys-text = Entre com sua digital, seu rosto ou o bloqueio de tela em vez de uma senha.
account-passkey-add = Adicionar uma chave de acesso
account-passkey-unnamed = Chave de acesso
account-passkey-details = Adicionada em { $when }
account-passkey-remove = Remover
account-passkey-added = A chave de acesso foi adicionada.
account-passkey-removed = A chave de acesso foi removida.
account-passkey-last = Essa chave de acesso é sua única forma de entrar: adicione outra primeiro.
