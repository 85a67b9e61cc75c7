# The built-in pages' and the sign-in email's texts in Simplified Chinese.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = 登录
title-signout = 退出登录
title-error = 错误
title-verify-request = 验证邮箱

## Sign-in page

signin-heading = 登录
signin-with = 使用 { $provider } 登录
signin-email-label = 电子邮箱
signin-email-placeholder = email@example.com
signin-passkey-hint = 已有通行密钥？请将邮箱留空。首次使用？输入你的邮箱，即可使用通行密钥创建账号。

## The sign-in page's message for its `error` query parameter

signin-error-default = 无法登录。
signin-error-different-account = 请尝试使用其他账号登录。
signin-error-account-not-linked = 为确认你的身份，请使用你最初使用的同一账号登录。
signin-error-email-send = 无法发送电子邮件。
signin-error-credentials = 登录失败。请检查你提供的信息是否正确。
signin-error-session-required = 请登录后访问此页面。
signin-error-missing-csrf = 登录表单已过期，请重试。

## Sign-out page

signout-heading = 退出登录
signout-question = 确定要退出登录吗？
signout-button = 退出登录

## Error page

error-heading-default = 错误
error-heading-configuration = 服务器错误
error-configuration-problem = 服务器配置有问题。
error-configuration-logs = 请查看服务器日志以了解详情。
error-heading-access-denied = 访问被拒绝
error-access-denied = 你没有登录权限。
error-heading-verification = 无法登录
error-verification-invalid = 登录链接已失效。
error-verification-used = 该链接可能已被使用或已过期。
error-heading-rate-limited = 尝试次数过多
error-rate-limited-attempts = 登录尝试次数过多。
error-rate-limited-wait = 请稍候再试。
error-signin-button = 登录

## Verify-request page (after an email link was sent)

verify-heading = 请查收邮件
verify-text = 登录链接已发送到你的邮箱。

## The sign-in email

email-subject = 登录 { $host }
email-button = 登录
email-ignore = 如果你没有请求此邮件，可以放心忽略。

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = 凭据
provider-email = 电子邮箱
provider-passkey = 通行密钥
signin-with-credentials = 使用凭据登录
signin-with-email = 使用电子邮箱登录
signin-with-passkey = 使用通行密钥登录

## The `message` of the JSON answers an API caller may show a user

api-configuration = 服务器配置有问题。请查看服务器日志以了解详情。
api-overloaded = 服务器繁忙，请稍后再试。
api-rate-limited = 尝试次数过多，请稍后再试。

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = 通行密钥请求已取消或超时。
passkey-error-already-registered = 此通行密钥已注册。
passkey-error-unsupported = 此浏览器或设备无法使用通行密钥。
passkey-error-insecure = 此地址无法使用通行密钥。
passkey-error-unverified = 无法验证通行密钥。
passkey-error-account-exists = 此电子邮箱已有账号：请使用其通行密钥登录（将电子邮箱留空，或在电子邮箱字段的建议中选择通行密钥）。
passkey-error-ip-address = 通行密钥需要本网站的域名，而不是 IP 地址。
passkey-error-use-localhost = 通行密钥需要名称，而不是 IP 地址：请改为打开 { $url }。
passkey-error-failed = 通行密钥登录失败（{ $error }）。
