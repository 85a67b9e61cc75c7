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
provider-password = パスワード
signin-with-credentials = 認証情報でサインイン
signin-with-email = メールでサインイン
signin-with-passkey = パスキーでサインイン
signin-with-password = サインイン

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = パスワード
password-new-label = 新しいパスワード
password-current-label = 現在のパスワード
password-name-label = 名前（任意）
password-forgot-link = パスワードをお忘れですか？
password-signup-link = アカウントを作成
password-signin-link = すでにアカウントをお持ちの方はサインイン
password-set-link = パスワードを設定
password-signup-heading = アカウントの作成
password-signup-button = アカウントを作成
password-forgot-heading = パスワードのリセット
password-forgot-text = メールアドレスを入力してください。そのメールアドレスのアカウントがある場合は、新しいパスワードを設定するためのリンクをお送りします。
password-forgot-button = リンクを送信
password-reset-heading = 新しいパスワードの設定
password-reset-button = パスワードを保存
password-account-heading = アカウント
password-change-heading = パスワードの変更
password-change-button = パスワードを変更
password-email-heading = メールアドレスの変更
password-email-current = 現在のメールアドレスは { $email } です。
password-email-new-label = 新しいメールアドレス
password-email-button = 確認用リンクを送信
password-delete-heading = アカウントの削除
password-delete-text = アカウントと、アカウントに保存されているすべてのデータが削除されます。この操作は元に戻せません。
password-delete-button = アカウントを削除
password-changed = パスワードを変更しました。ほかのセッションはサインアウトされました。
password-email-sent = 新しいメールアドレスで受信できる場合は、確認用リンクを送信しました。
password-email-changed = メールアドレスを変更しました。
password-check-email = このメールアドレスで受信できる場合は、リンクを送信しました。リンクを開いて続行してください。
password-error-wrong = パスワードが正しくありません。
password-error-none = このアカウントにはまだパスワードがありません。メールアドレスに送信されたリンクからパスワードを設定してください。
password-error-too-short = パスワードは { $min } 文字以上で入力してください。
password-error-too-long = パスワードは { $max } 文字以下で入力してください。
password-error-email = 有効なメールアドレスを入力してください。
password-error-same-email = これはすでに現在のメールアドレスです。
password-error-unverified = 先にメールアドレスを確認してください。新しいリンクを送信しました。

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = { $host } のメールアドレスの確認
password-mail-verify-button = メールアドレスを確認
password-mail-verify-note = アカウントを作成した覚えがない場合は、このメールを無視してください。何も起こりません。
password-mail-reset-subject = { $host } の新しいパスワードの設定
password-mail-reset-button = 新しいパスワードを設定
password-mail-reset-note = 心当たりがない場合は、このメールを無視してください。パスワードは変更されません。
password-mail-exists-subject = このメールアドレスのアカウントは { $host } にすでに存在します
password-mail-exists-text = どなたかがこのメールアドレスでアカウントを作成しようとしました。このメールアドレスのアカウントはすでに存在します。サインインするか、下のリンクから新しいパスワードを設定してください。
password-mail-exists-note = 心当たりがない場合は、このメールを無視してください。何も変更されていません。
password-mail-confirm-subject = { $host } の新しいメールアドレスの確認
password-mail-confirm-button = 新しいメールアドレスを確認
password-mail-confirm-note = 心当たりがない場合は、このメールを無視してください。何も変更されません。
password-mail-changing-subject = { $host } のメールアドレスが変更されようとしています
password-mail-changing-text = アカウントにサインインしている方から、メールアドレスを { $email } に変更するリクエストがありました。
password-mail-changing-note = 心当たりがない場合は、今すぐ新しいパスワードを設定してください。変更は新しいメールアドレスが確認されるまで反映されません。

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = ほかの場所でのサインイン
account-sessions-text = このアカウントは、以下のブラウザやデバイスでもサインインしています。
account-sessions-jwt-text = このアカウントにサインインしているほかのすべてのブラウザとデバイスからサインアウトします。
account-sessions-end-others = ほかのすべての場所からサインアウト
account-session-unknown-device = 不明なブラウザ
account-session-details = ネットワーク { $ip }、最終アクティブ { $when }
account-session-active = 最終アクティブ { $when }
account-session-end = このデバイスをサインアウト
account-sessions-ended = これらのセッションはサインアウトされました。

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = 2 段階認証
two-factor-text = 認証アプリに表示されているコード、またはリカバリーコードのいずれかを入力してください。
two-factor-code-label = コード
two-factor-button = 確認
two-factor-error = コードが正しくないか、すでに使用されています。次のコードをお試しください。
two-factor-cancel = キャンセルしてもう一度サインイン

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = このブラウザーでは今後コードを求めない
account-two-factor-heading = 2 要素認証
account-two-factor-off-text = パスワードに加えて、認証アプリのコードでアカウントを保護します。
account-two-factor-setup-button = 設定する
account-two-factor-on-text = オン。残りの復旧コード: { $count }
account-two-factor-codes-button = 新しい復旧コード
account-two-factor-disable-label = アプリのコード、復旧コード、またはパスワード
account-two-factor-disable-button = オフにする
account-two-factor-off-notice = 2 要素認証はオフです。
account-two-factor-wrong = アプリのコード、復旧コード、パスワードのいずれでもありません。
two-factor-on-notice = 2 要素認証はオンです。
two-factor-setup-heading = 2 要素認証を設定
two-factor-setup-text = 認証アプリで QR コードを読み取り、表示されたコードを入力してください。
two-factor-setup-qr-alt = 認証アプリ用の QR コード
two-factor-setup-secret = またはアプリにこのキーを入力:
two-factor-setup-open-app = このデバイスの認証アプリで開く
two-factor-setup-button = オンにする
two-factor-codes-heading = 復旧コード
two-factor-codes-text = これらのコードを安全な場所に保管してください。認証アプリを失ったとき、各コードで 1 回サインインできます。表示されるのは今だけです。
two-factor-codes-notice = 新しい復旧コードが古いコードに置き換わりました。
two-factor-back-link = アカウントに戻る

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = パスキー
account-passkeys-text = パスワードの代わりに指紋、顔、または画面ロックでサインインします。
account-passkey-add = パスキーを追加
account-passkey-unnamed = パスキー
account-passkey-details = 追加日時: { $when }
account-passkey-remove = 削除
account-passkey-added = パスキーを追加しました。
account-passkey-removed = パスキーを削除しました。
account-passkey-last = このパスキーは唯一のサインイン方法です。先に別の方法を追加してください。
