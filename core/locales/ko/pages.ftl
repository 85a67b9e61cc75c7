# The built-in pages' and the sign-in email's texts in Korean.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = 로그인
title-signout = 로그아웃
title-error = 오류
title-verify-request = 이메일 확인

## Sign-in page

signin-heading = 로그인
signin-with = { $provider }(으)로 로그인
signin-email-label = 이메일
signin-email-placeholder = email@example.com
signin-passkey-hint = 패스키가 있나요? 이메일을 비워 두세요. 처음이신가요? 이메일을 입력하면 패스키로 계정을 만들 수 있습니다.

## The sign-in page's message for its `error` query parameter

signin-error-default = 로그인할 수 없습니다.
signin-error-different-account = 다른 계정으로 로그인해 보세요.
signin-error-account-not-linked = 본인 확인을 위해 처음에 사용한 것과 같은 계정으로 로그인하세요.
signin-error-email-send = 이메일을 보낼 수 없습니다.
signin-error-credentials = 로그인하지 못했습니다. 입력한 정보가 올바른지 확인하세요.
signin-error-session-required = 이 페이지에 접근하려면 로그인하세요.
signin-error-missing-csrf = 로그인 양식이 만료되었습니다. 다시 시도하세요.

## Sign-out page

signout-heading = 로그아웃
signout-question = 로그아웃하시겠습니까?
signout-button = 로그아웃

## Error page

error-heading-default = 오류
error-heading-configuration = 서버 오류
error-configuration-problem = 서버 구성에 문제가 있습니다.
error-configuration-logs = 자세한 내용은 서버 로그를 확인하세요.
error-heading-access-denied = 접근 거부됨
error-access-denied = 로그인할 권한이 없습니다.
error-heading-verification = 로그인할 수 없음
error-verification-invalid = 로그인 링크가 더 이상 유효하지 않습니다.
error-verification-used = 이미 사용되었거나 만료되었을 수 있습니다.
error-heading-rate-limited = 시도 횟수 초과
error-rate-limited-attempts = 로그인 시도가 너무 많았습니다.
error-rate-limited-wait = 잠시 후 다시 시도하세요.
error-signin-button = 로그인

## Verify-request page (after an email link was sent)

verify-heading = 이메일을 확인하세요
verify-text = 로그인 링크를 이메일 주소로 보냈습니다.

## The sign-in email

email-subject = { $host }에 로그인
email-button = 로그인
email-ignore = 이 이메일을 요청하지 않았다면 무시하셔도 됩니다.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = 자격 증명
provider-email = 이메일
provider-passkey = 패스키
provider-password = 비밀번호
signin-with-credentials = 자격 증명으로 로그인
signin-with-email = 이메일로 로그인
signin-with-passkey = 패스키로 로그인
signin-with-password = 로그인

## The `message` of the JSON answers an API caller may show a user

api-configuration = 서버 구성에 문제가 있습니다. 자세한 내용은 서버 로그를 확인하세요.
api-overloaded = 서버가 사용 중입니다. 잠시 후 다시 시도하세요.
api-rate-limited = 시도 횟수가 너무 많습니다. 나중에 다시 시도하세요.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = 패스키 요청이 취소되었거나 시간이 초과되었습니다.
passkey-error-already-registered = 이 패스키는 이미 등록되어 있습니다.
passkey-error-unsupported = 이 브라우저나 기기에서는 패스키를 사용할 수 없습니다.
passkey-error-insecure = 이 주소에서는 패스키를 사용할 수 없습니다.
passkey-error-unverified = 패스키를 확인할 수 없습니다.
passkey-error-account-exists = 이 이메일에는 이미 계정이 있습니다. 해당 패스키로 로그인하세요(이메일을 비워 두거나 이메일 입력란의 추천 항목에서 패스키를 선택하세요).
passkey-error-ip-address = 패스키를 사용하려면 IP 주소가 아닌 이 사이트의 도메인 이름이 필요합니다.
passkey-error-use-localhost = 패스키를 사용하려면 IP 주소가 아닌 이름이 필요합니다. 대신 { $url }을(를) 여세요.
passkey-error-failed = 패스키 로그인에 실패했습니다({ $error }).

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = 비밀번호
password-new-label = 새 비밀번호
password-current-label = 현재 비밀번호
password-name-label = 이름(선택 사항)
password-forgot-link = 비밀번호를 잊으셨나요?
password-signup-link = 계정 만들기
password-signin-link = 이미 계정이 있나요? 로그인
password-set-link = 비밀번호 설정
password-signup-heading = 계정 만들기
password-signup-button = 계정 만들기
password-forgot-heading = 비밀번호 재설정
password-forgot-text = 이메일 주소를 입력하세요. 해당 주소로 된 계정이 있으면 새 비밀번호를 설정할 수 있는 링크를 보내 드립니다.
password-forgot-button = 링크 보내기
password-reset-heading = 새 비밀번호 설정
password-reset-button = 비밀번호 저장
password-account-heading = 내 계정
password-change-heading = 비밀번호 변경
password-change-button = 비밀번호 변경
password-email-heading = 이메일 주소 변경
password-email-current = 현재 주소는 { $email }입니다.
password-email-new-label = 새 이메일 주소
password-email-button = 확인 링크 보내기
password-delete-heading = 계정 삭제
password-delete-text = 계정과 계정에 저장된 모든 정보가 삭제됩니다. 이 작업은 되돌릴 수 없습니다.
password-delete-button = 내 계정 삭제
password-changed = 비밀번호가 변경되었습니다. 다른 세션은 모두 로그아웃되었습니다.
password-email-sent = 새 주소로 메일을 받을 수 있다면 그 주소로 확인 링크를 보냈습니다.
password-email-changed = 이메일 주소가 변경되었습니다.
password-check-email = 해당 주소로 메일을 받을 수 있다면 그 주소로 링크를 보냈습니다. 링크를 열어 계속 진행하세요.
password-error-wrong = 비밀번호가 올바르지 않습니다.
password-error-none = 이 계정에는 아직 비밀번호가 없습니다. 이메일 주소로 보낸 링크에서 비밀번호를 설정하세요.
password-error-too-short = 비밀번호는 { $min }자 이상이어야 합니다.
password-error-too-long = 비밀번호는 { $max }자 이하여야 합니다.
password-error-email = 올바른 이메일 주소를 입력하세요.
password-error-same-email = 현재 사용 중인 이메일 주소와 같습니다.
password-error-unverified = 먼저 이메일 주소를 확인하세요. 새 링크를 보냈습니다.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = { $host } 이메일 주소 확인
password-mail-verify-button = 주소 확인
password-mail-verify-note = 계정을 만든 적이 없다면 이 이메일을 무시하세요. 아무 일도 일어나지 않습니다.
password-mail-reset-subject = { $host } 새 비밀번호 설정
password-mail-reset-button = 새 비밀번호 설정
password-mail-reset-note = 요청한 적이 없다면 이 이메일을 무시하세요. 비밀번호는 그대로 유지됩니다.
password-mail-exists-subject = { $host }에 이 주소로 된 계정이 이미 있습니다
password-mail-exists-text = 누군가 이 이메일 주소로 계정을 만들려고 했습니다. 이미 계정이 있으므로 로그인하거나 아래 링크에서 새 비밀번호를 설정하세요.
password-mail-exists-note = 본인이 아니라면 이 이메일을 무시하세요. 변경된 내용은 없습니다.
password-mail-confirm-subject = { $host } 새 이메일 주소 확인
password-mail-confirm-button = 새 주소 확인
password-mail-confirm-note = 요청한 적이 없다면 이 이메일을 무시하세요. 아무것도 변경되지 않습니다.
password-mail-changing-subject = { $host }의 이메일 주소가 변경됩니다
password-mail-changing-text = 계정에 로그인한 누군가가 계정의 이메일 주소를 { $email }(으)로 변경해 달라고 요청했습니다.
password-mail-changing-note = 본인이 아니라면 지금 바로 새 비밀번호를 설정하세요. 새 주소가 확인되어야만 변경이 적용됩니다.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = 다른 곳의 로그인
account-sessions-text = 내 계정은 아래의 브라우저와 기기에도 로그인되어 있습니다.
account-sessions-jwt-text = 내 계정에 로그인된 다른 모든 브라우저와 기기에서 로그아웃합니다.
account-sessions-end-others = 다른 모든 곳에서 로그아웃
account-session-unknown-device = 알 수 없는 브라우저
account-session-details = 네트워크 { $ip }, 마지막 활동 { $when }
account-session-active = 마지막 활동 { $when }
account-session-end = 이 기기에서 로그아웃
account-sessions-ended = 해당 세션에서 로그아웃되었습니다.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = 2단계 인증
two-factor-text = 인증 앱에 표시된 코드나 복구 코드 중 하나를 입력하세요.
two-factor-code-label = 코드
two-factor-button = 확인
two-factor-error = 코드가 올바르지 않거나 이미 사용되었습니다. 다음 코드를 입력해 보세요.
two-factor-cancel = 취소하고 다시 로그인

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = 이 브라우저에서는 더 이상 코드를 묻지 않기
account-two-factor-heading = 2단계 인증
account-two-factor-off-text = 비밀번호와 함께 인증 앱의 코드로 계정을 보호하세요.
account-two-factor-setup-button = 설정
account-two-factor-on-text = 켜짐. 남은 복구 코드: { $count }
account-two-factor-codes-button = 새 복구 코드
account-two-factor-disable-label = 앱의 코드, 복구 코드 또는 비밀번호
account-two-factor-disable-button = 끄기
account-two-factor-off-notice = 2단계 인증이 꺼졌습니다.
account-two-factor-wrong = 앱의 코드, 복구 코드, 비밀번호 중 어느 것도 아닙니다.
two-factor-on-notice = 2단계 인증이 켜졌습니다.
two-factor-setup-heading = 2단계 인증 설정
two-factor-setup-text = 인증 앱으로 QR 코드를 스캔한 다음 앱에 표시된 코드를 입력하세요.
two-factor-setup-qr-alt = 인증 앱용 QR 코드
two-factor-setup-secret = 또는 앱에 이 키를 입력하세요:
two-factor-setup-open-app = 이 기기의 인증 앱에서 열기
two-factor-setup-button = 켜기
two-factor-codes-heading = 복구 코드
two-factor-codes-text = 이 코드를 안전한 곳에 보관하세요. 인증 앱을 잃어버렸을 때 각 코드로 한 번 로그인할 수 있습니다. 지금만 표시됩니다.
two-factor-codes-notice = 새 복구 코드가 이전 코드를 대체합니다.
two-factor-back-link = 계정으로 돌아가기

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = 패스키
account-passkeys-text = 비밀번호 대신 지문, 얼굴 또는 화면 잠금으로 로그인하세요.
account-passkey-add = 패스키 추가
account-passkey-unnamed = 패스키
account-passkey-details = { $when }에 추가됨
account-passkey-remove = 삭제
account-passkey-added = 패스키를 추가했습니다.
account-passkey-removed = 패스키를 삭제했습니다.
account-passkey-last = 이 패스키가 유일한 로그인 방법입니다. 먼저 다른 방법을 추가하세요.
