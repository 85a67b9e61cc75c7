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
provider-password = كلمة المرور
signin-with-credentials = تسجيل الدخول باستخدام بيانات الاعتماد
signin-with-email = تسجيل الدخول باستخدام البريد الإلكتروني
signin-with-passkey = تسجيل الدخول باستخدام مفتاح المرور
signin-with-password = تسجيل الدخول

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = كلمة المرور
password-new-label = كلمة المرور الجديدة
password-current-label = كلمة المرور الحالية
password-name-label = الاسم (اختياري)
password-forgot-link = هل نسيت كلمة المرور؟
password-signup-link = إنشاء حساب
password-signin-link = لديك حساب بالفعل؟ سجّل الدخول
password-set-link = تعيين كلمة مرور
password-signup-heading = إنشاء حساب
password-signup-button = إنشاء الحساب
password-forgot-heading = إعادة تعيين كلمة المرور
password-forgot-text = أدخل عنوان بريدك الإلكتروني: إذا كان مرتبطًا بحساب، فسنرسل إليه رابطًا لاختيار كلمة مرور جديدة.
password-forgot-button = إرسال الرابط
password-reset-heading = اختيار كلمة مرور جديدة
password-reset-button = حفظ كلمة المرور
password-account-heading = حسابك
password-change-heading = تغيير كلمة المرور
password-change-button = تغيير كلمة المرور
password-email-heading = تغيير عنوان بريدك الإلكتروني
password-email-current = عنوانك هو { $email }.
password-email-new-label = عنوان البريد الإلكتروني الجديد
password-email-button = إرسال رابط التأكيد
password-delete-heading = حذف حسابك
password-delete-text = سيؤدي هذا إلى حذف حسابك وكل ما هو محفوظ معه. ولا يمكن التراجع عن ذلك.
password-delete-button = حذف حسابي
password-changed = تم تغيير كلمة المرور، وتم تسجيل الخروج من جلساتك الأخرى.
password-email-sent = إذا كان العنوان الجديد يستطيع استلامه، فقد تم إرسال رابط تأكيد إليه.
password-email-changed = تم تغيير عنوان بريدك الإلكتروني.
password-check-email = إذا كان هذا العنوان يستطيع استلام الرسائل، فقد تم إرسال رابط إليه. افتحه للمتابعة.
password-error-wrong = كلمة المرور غير صحيحة.
password-error-none = لا توجد كلمة مرور لهذا الحساب بعد: عيّن كلمة مرور باستخدام الرابط المُرسل إلى عنوانك.
password-error-too-short = يجب ألا يقل عدد أحرف كلمة المرور عن { $min }.
password-error-too-long = يجب ألا يزيد عدد أحرف كلمة المرور على { $max }.
password-error-email = أدخل عنوان بريد إلكتروني صالحًا.
password-error-same-email = هذا هو عنوان بريدك الإلكتروني بالفعل.
password-error-unverified = أكّد عنوان بريدك الإلكتروني أولًا: تم إرسال رابط جديد إليه.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = أكّد عنوان بريدك الإلكتروني على { $host }
password-mail-verify-button = تأكيد العنوان
password-mail-verify-note = إذا لم تُنشئ حسابًا، فتجاهل هذه الرسالة: لن يحدث شيء.
password-mail-reset-subject = اختر كلمة مرور جديدة على { $host }
password-mail-reset-button = اختيار كلمة مرور جديدة
password-mail-reset-note = إذا لم تطلب ذلك، فتجاهل هذه الرسالة: ستبقى كلمة المرور كما هي.
password-mail-exists-subject = يوجد حساب بالفعل لهذا العنوان على { $host }
password-mail-exists-text = حاول شخص ما إنشاء حساب باستخدام عنوان بريدك الإلكتروني. لديك حساب بالفعل: سجّل الدخول، أو اختر كلمة مرور جديدة عبر الرابط أدناه.
password-mail-exists-note = إذا لم تكن أنت من فعل ذلك، فتجاهل هذه الرسالة: لم يتغير شيء.
password-mail-confirm-subject = أكّد عنوان بريدك الإلكتروني الجديد على { $host }
password-mail-confirm-button = تأكيد العنوان الجديد
password-mail-confirm-note = إذا لم تطلب ذلك، فتجاهل هذه الرسالة: لن يتغير شيء.
password-mail-changing-subject = سيتم تغيير عنوان بريدك الإلكتروني على { $host }
password-mail-changing-text = طلب شخص مسجّل الدخول إلى حسابك تغيير عنوان البريد الإلكتروني للحساب إلى { $email }.
password-mail-changing-note = إذا لم تكن أنت من فعل ذلك، فاختر كلمة مرور جديدة الآن: لن يتم التغيير إلا بعد تأكيد العنوان الجديد.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = تسجيل الدخول في أماكن أخرى
account-sessions-text = حسابك مسجَّل الدخول أيضًا في المتصفحات والأجهزة أدناه.
account-sessions-jwt-text = سجّل الخروج من كل المتصفحات والأجهزة الأخرى المسجَّل دخولها إلى حسابك.
account-sessions-end-others = تسجيل الخروج من كل مكان آخر
account-session-unknown-device = متصفح غير معروف
account-session-details = الشبكة { $ip }، آخر نشاط { $when }
account-session-active = آخر نشاط { $when }
account-session-end = تسجيل الخروج من هذا الجهاز
account-sessions-ended = تم تسجيل الخروج من تلك الجلسات.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = التحقق بخطوتين
two-factor-text = أدخل الرمز الذي يعرضه تطبيق المصادقة، أو أحد رموز الاسترداد.
two-factor-code-label = الرمز
two-factor-button = تحقّق
two-factor-error = هذا الرمز غير صحيح أو استُخدم من قبل. جرّب الرمز التالي.
two-factor-cancel = إلغاء وتسجيل الدخول من جديد

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = لا تطلب رمزًا مرة أخرى في هذا المتصفح
account-two-factor-heading = المصادقة الثنائية
account-two-factor-off-text = احمِ حسابك برموز من تطبيق مصادقة إلى جانب كلمة المرور.
account-two-factor-setup-button = إعداد
account-two-factor-on-text = مفعّلة. رموز الاسترداد المتبقية: { $count }
account-two-factor-codes-button = رموز استرداد جديدة
account-two-factor-disable-label = رمز من تطبيقك أو رمز استرداد أو كلمة المرور
account-two-factor-disable-button = إيقاف
account-two-factor-off-notice = المصادقة الثنائية متوقفة.
account-two-factor-wrong = هذا ليس رمزًا من تطبيقك ولا رمز استرداد ولا كلمة المرور.
two-factor-on-notice = المصادقة الثنائية مفعّلة.
two-factor-setup-heading = إعداد المصادقة الثنائية
two-factor-setup-text = امسح رمز QR بتطبيق المصادقة، ثم أدخل الرمز الذي يعرضه.
two-factor-setup-qr-alt = رمز QR لتطبيق المصادقة
two-factor-setup-secret = أو أدخل هذا المفتاح في التطبيق:
two-factor-setup-open-app = فتح في تطبيق المصادقة على هذا الجهاز
two-factor-setup-button = تفعيل
two-factor-codes-heading = رموز الاسترداد الخاصة بك
two-factor-codes-text = احفظ هذه الرموز في مكان آمن: كل رمز يتيح لك تسجيل الدخول مرة واحدة إذا فقدت تطبيق المصادقة. لن تُعرض إلا الآن.
two-factor-codes-notice = رموز الاسترداد الجديدة تحل محل القديمة.
two-factor-back-link = العودة إلى حسابك

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = مفاتيح المرور
account-passkeys-text = سجّل الدخول ببصمتك أو وجهك أو قفل الشاشة بدلًا من كلمة المرور.
account-passkey-add = إضافة مفتاح مرور
account-passkey-unnamed = مفتاح مرور
account-passkey-details = أُضيف في { $when }
account-passkey-remove = إزالة
account-passkey-added = أُضيف مفتاح المرور.
account-passkey-removed = أُزيل مفتاح المرور.
account-passkey-last = مفتاح المرور هذا هو طريقتك الوحيدة لتسجيل الدخول: أضف طريقة أخرى أولًا.
