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
provider-password = 密码
signin-with-credentials = 使用凭据登录
signin-with-email = 使用电子邮箱登录
signin-with-passkey = 使用通行密钥登录
signin-with-password = 登录

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = 密码
password-new-label = 新密码
password-current-label = 当前密码
password-name-label = 姓名（可选）
password-forgot-link = 忘记密码？
password-signup-link = 创建账号
password-signin-link = 已有账号？登录
password-set-link = 设置密码
password-signup-heading = 创建账号
password-signup-button = 创建账号
password-forgot-heading = 重置密码
password-forgot-text = 请输入你的邮箱地址：如果该地址已注册账号，我们会向其发送一个用于设置新密码的链接。
password-forgot-button = 发送链接
password-reset-heading = 设置新密码
password-reset-button = 保存密码
password-account-heading = 你的账号
password-change-heading = 修改密码
password-change-button = 修改密码
password-email-heading = 更改邮箱地址
password-email-current = 你的邮箱地址是 { $email }。
password-email-new-label = 新邮箱地址
password-email-button = 发送确认链接
password-delete-heading = 删除账号
password-delete-text = 这将删除你的账号及其保存的所有内容。此操作无法撤销。
password-delete-button = 删除我的账号
password-changed = 你的密码已修改，你的其他会话均已退出登录。
password-email-sent = 如果新地址可以接收邮件，确认链接已发送至该地址。
password-email-changed = 你的邮箱地址已更改。
password-check-email = 如果该地址可以接收邮件，链接已发送至该地址。请打开链接以继续。
password-error-wrong = 密码不正确。
password-error-none = 此账号尚未设置密码：请通过发送到你邮箱的链接设置密码。
password-error-too-short = 密码长度至少为 { $min } 个字符。
password-error-too-long = 密码长度最多为 { $max } 个字符。
password-error-email = 请输入有效的邮箱地址。
password-error-same-email = 这已经是你的邮箱地址。
password-error-unverified = 请先确认你的邮箱地址：新的链接已发送至该地址。

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = 确认你在 { $host } 的邮箱地址
password-mail-verify-button = 确认邮箱地址
password-mail-verify-note = 如果你没有创建账号，请忽略此邮件，不会发生任何事情。
password-mail-reset-subject = 为 { $host } 设置新密码
password-mail-reset-button = 设置新密码
password-mail-reset-note = 如果你没有提出此请求，请忽略此邮件，你的密码将保持不变。
password-mail-exists-subject = 此邮箱地址在 { $host } 上已有账号
password-mail-exists-text = 有人尝试使用你的邮箱地址创建账号。你已经有一个账号：请登录，或通过下方链接设置新密码。
password-mail-exists-note = 如果这不是你本人的操作，请忽略此邮件，没有任何更改。
password-mail-confirm-subject = 确认你在 { $host } 的新邮箱地址
password-mail-confirm-button = 确认新邮箱地址
password-mail-confirm-note = 如果你没有提出此请求，请忽略此邮件，不会有任何更改。
password-mail-changing-subject = 你在 { $host } 的邮箱地址即将更改
password-mail-changing-text = 已登录你账号的某人请求将该账号的邮箱地址更改为 { $email }。
password-mail-changing-note = 如果这不是你本人的操作，请立即设置新密码：只有在新地址得到确认后，更改才会生效。

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = 在其他地方的登录
account-sessions-text = 你的账号还在以下浏览器和设备上登录。
account-sessions-jwt-text = 从登录你账号的所有其他浏览器和设备退出登录。
account-sessions-end-others = 从其他所有地方退出登录
account-session-unknown-device = 未知浏览器
account-session-details = 网络 { $ip }，最后活动 { $when }
account-session-active = 最后活动 { $when }
account-session-end = 让此设备退出登录
account-sessions-ended = 这些会话已退出登录。

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = 两步验证
two-factor-text = 请输入身份验证器应用显示的验证码，或你的一个恢复码。
two-factor-code-label = 验证码
two-factor-button = 验证
two-factor-error = 验证码不正确或已被使用。请尝试下一个验证码。
two-factor-cancel = 取消并重新登录

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = 在此浏览器中不再要求输入验证码
account-two-factor-heading = 双重身份验证
account-two-factor-off-text = 除密码外，再用身份验证器应用的验证码保护你的账户。
account-two-factor-setup-button = 设置
account-two-factor-on-text = 已开启。剩余恢复码：{ $count }
account-two-factor-codes-button = 新的恢复码
account-two-factor-disable-label = 应用中的验证码、恢复码或你的密码
account-two-factor-disable-button = 关闭
account-two-factor-off-notice = 双重身份验证已关闭。
account-two-factor-wrong = 这不是应用中的验证码、恢复码，也不是你的密码。
two-factor-on-notice = 双重身份验证已开启。
two-factor-setup-heading = 设置双重身份验证
two-factor-setup-text = 用身份验证器应用扫描二维码，然后输入它显示的验证码。
two-factor-setup-qr-alt = 身份验证器应用的二维码
two-factor-setup-secret = 或在应用中输入此密钥：
two-factor-setup-open-app = 在此设备的身份验证器应用中打开
two-factor-setup-button = 开启
two-factor-codes-heading = 你的恢复码
two-factor-codes-text = 请把这些恢复码保存在安全的地方：丢失身份验证器应用时，每个恢复码可登录一次。它们只显示这一次。
two-factor-codes-notice = 新的恢复码已替换旧的恢复码。
two-factor-back-link = 返回你的账户

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = 通行密钥
account-passkeys-text = 使用指纹、面容或屏幕锁代替密码登录。
account-passkey-add = 添加通行密钥
account-passkey-unnamed = 通行密钥
account-passkey-details = 添加于 { $when }
account-passkey-remove = 移除
account-passkey-added = 已添加通行密钥。
account-passkey-removed = 已移除通行密钥。
account-passkey-last = 该通行密钥是你唯一的登录方式：请先添加其他方式。
