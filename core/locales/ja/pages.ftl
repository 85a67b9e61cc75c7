# The built-in pages' and the sign-in email's texts in Japanese.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = サインイン
title-signout = サインアウト
title-error = エラー
title-verify-request = メールの確認

## Sign-in page

signin-heading = サインイン
signin-with = { $provider } でサインイン
signin-email-label = メールアドレス
signin-email-placeholder = email@example.com
signin-passkey-hint = パスキーをお持ちの場合は、メールアドレスを空欄のままにしてください。初めての方は、メールアドレスを入力するとパスキーでアカウントを作成できます。

## The sign-in page's message for its `error` query parameter

signin-error-default = サインインできません。
signin-error-different-account = 別のアカウントでサインインしてください。
signin-error-account-not-linked = 本人確認のため、最初に使用したものと同じアカウントでサインインしてください。
signin-error-email-send = メールを送信できませんでした。
signin-error-credentials = サインインに失敗しました。入力した情報が正しいか確認してください。
signin-error-session-required = このページにアクセスするにはサインインしてください。
signin-error-missing-csrf = サインインフォームの有効期限が切れました。もう一度お試しください。

## Sign-out page

signout-heading = サインアウト
signout-question = サインアウトしてもよろしいですか？
signout-button = サインアウト

## Error page

error-heading-default = エラー
error-heading-configuration = サーバーエラー
error-configuration-problem = サーバーの設定に問題があります。
error-configuration-logs = 詳しくはサーバーのログを確認してください。
error-heading-access-denied = アクセスが拒否されました
error-access-denied = サインインする権限がありません。
error-heading-verification = サインインできません
error-verification-invalid = サインインリンクは無効になりました。
error-verification-used = すでに使用されたか、有効期限が切れた可能性があります。
error-heading-rate-limited = 試行回数が多すぎます
error-rate-limited-attempts = サインインの試行回数が多すぎます。
error-rate-limited-wait = しばらく待ってから、もう一度お試しください。
error-signin-button = サインイン

## Verify-request page (after an email link was sent)

verify-heading = メールを確認してください
verify-text = サインイン用のリンクをメールアドレスに送信しました。

## The sign-in email

email-subject = { $host } にサインイン
email-button = サインイン
email-ignore = このメールに心当たりがない場合は、無視していただいて問題ありません。

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = 認証情報
provider-email = メール
provider-passkey = パスキー
signin-with-credentials = 認証情報でサインイン
signin-with-email = メールでサインイン
signin-with-passkey = パスキーでサインイン

## The `message` of the JSON answers an API caller may show a user

api-configuration = サーバーの設定に問題があります。詳しくはサーバーのログを確認してください。
api-overloaded = サーバーが混み合っています。しばらくしてからもう一度お試しください。
api-rate-limited = 試行回数が多すぎます。後でもう一度お試しください。

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = パスキーのリクエストがキャンセルされたか、タイムアウトしました。
passkey-error-already-registered = このパスキーはすでに登録されています。
passkey-error-unsupported = このブラウザーまたはデバイスではパスキーを使用できません。
passkey-error-insecure = このアドレスではパスキーを使用できません。
passkey-error-unverified = パスキーを確認できませんでした。
passkey-error-account-exists = このメールアドレスにはすでにアカウントがあります。そのパスキーでサインインしてください（メールアドレスを空のままにするか、メール欄の候補からパスキーを選択してください）。
passkey-error-ip-address = パスキーには IP アドレスではなく、このサイトのドメイン名が必要です。
passkey-error-use-localhost = パスキーには IP アドレスではなく名前が必要です。代わりに { $url } を開いてください。
passkey-error-failed = パスキーでのサインインに失敗しました（{ $error }）。
