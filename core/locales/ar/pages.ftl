# The built-in pages' and the sign-in email's texts in Arabic.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = تسجيل الدخول
title-signout = تسجيل الخروج
title-error = خطأ
title-verify-request = تأكيد البريد الإلكتروني

## Sign-in page

signin-heading = تسجيل الدخول
signin-with = تسجيل الدخول باستخدام { $provider }
signin-email-label = البريد الإلكتروني
signin-email-placeholder = email@example.com
signin-passkey-hint = هل لديك مفتاح مرور؟ اترك حقل البريد الإلكتروني فارغًا. مستخدم جديد؟ أدخل بريدك الإلكتروني لإنشاء حساب باستخدام مفتاح مرور.

## The sign-in page's message for its `error` query parameter

signin-error-default = تعذّر تسجيل الدخول.
signin-error-different-account = حاول تسجيل الدخول باستخدام حساب آخر.
signin-error-account-not-linked = لتأكيد هويتك، سجّل الدخول باستخدام الحساب نفسه الذي استخدمته في البداية.
signin-error-email-send = تعذّر إرسال البريد الإلكتروني.
signin-error-credentials = فشل تسجيل الدخول. تحقّق من صحة البيانات التي أدخلتها.
signin-error-session-required = يُرجى تسجيل الدخول للوصول إلى هذه الصفحة.
signin-error-missing-csrf = انتهت صلاحية نموذج تسجيل الدخول. يُرجى المحاولة مرة أخرى.

## Sign-out page

signout-heading = تسجيل الخروج
signout-question = هل تريد بالتأكيد تسجيل الخروج؟
signout-button = تسجيل الخروج

## Error page

error-heading-default = خطأ
error-heading-configuration = خطأ في الخادم
error-configuration-problem = توجد مشكلة في إعدادات الخادم.
error-configuration-logs = راجع سجلات الخادم لمزيد من المعلومات.
error-heading-access-denied = تم رفض الوصول
error-access-denied = ليس لديك إذن بتسجيل الدخول.
error-heading-verification = تعذّر تسجيل الدخول
error-verification-invalid = رابط تسجيل الدخول لم يعد صالحًا.
error-verification-used = ربما استُخدم من قبل أو انتهت صلاحيته.
error-heading-rate-limited = محاولات كثيرة جدًا
error-rate-limited-attempts = كانت هناك محاولات كثيرة جدًا لتسجيل الدخول.
error-rate-limited-wait = انتظر قليلًا، ثم حاول مرة أخرى.
error-signin-button = تسجيل الدخول

## Verify-request page (after an email link was sent)

verify-heading = تحقّق من بريدك الإلكتروني
verify-text = تم إرسال رابط تسجيل الدخول إلى عنوان بريدك الإلكتروني.

## The sign-in email

email-subject = تسجيل الدخول إلى { $host }
email-button = تسجيل الدخول
email-ignore = إذا لم تطلب هذه الرسالة، فيمكنك تجاهلها بأمان.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = بيانات الاعتماد
provider-email = البريد الإلكتروني
provider-passkey = مفتاح المرور
signin-with-credentials = تسجيل الدخول باستخدام بيانات الاعتماد
signin-with-email = تسجيل الدخول باستخدام البريد الإلكتروني
signin-with-passkey = تسجيل الدخول باستخدام مفتاح المرور

## The `message` of the JSON answers an API caller may show a user

api-configuration = توجد مشكلة في إعدادات الخادم. راجع سجلات الخادم لمزيد من المعلومات.
api-overloaded = الخادم مشغول. حاول مرة أخرى بعد قليل.
api-rate-limited = محاولات كثيرة جدًا. حاول مرة أخرى لاحقًا.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = أُلغي طلب مفتاح المرور أو انتهت مهلته.
passkey-error-already-registered = مفتاح المرور هذا مسجّل بالفعل.
passkey-error-unsupported = لا يمكن لهذا المتصفح أو الجهاز استخدام مفاتيح المرور.
passkey-error-insecure = مفاتيح المرور غير متاحة على هذا العنوان.
passkey-error-unverified = تعذّر التحقق من مفتاح المرور.
passkey-error-account-exists = لهذا البريد الإلكتروني حساب بالفعل: سجّل الدخول باستخدام مفتاح المرور الخاص به (اترك البريد الإلكتروني فارغًا، أو اختر مفتاح المرور من اقتراحات حقل البريد الإلكتروني).
passkey-error-ip-address = تحتاج مفاتيح المرور إلى اسم نطاق هذا الموقع، لا إلى عنوان IP.
passkey-error-use-localhost = تحتاج مفاتيح المرور إلى اسم، لا إلى عنوان IP: افتح { $url } بدلًا من ذلك.
passkey-error-failed = تعذّر تسجيل الدخول باستخدام مفتاح المرور ({ $error }).
