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
signin-with-credentials = 자격 증명으로 로그인
signin-with-email = 이메일로 로그인
signin-with-passkey = 패스키로 로그인

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
