# The built-in pages' and the sign-in email's texts in Hebrew.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = התחברות
title-signout = התנתקות
title-error = שגיאה
title-verify-request = אימות כתובת האימייל

## Sign-in page

signin-heading = התחברות
signin-with = התחברות באמצעות { $provider }
signin-email-label = אימייל
signin-email-placeholder = email@example.com
signin-passkey-hint = יש לך מפתח גישה? אפשר להשאיר את שדה האימייל ריק. פעם ראשונה כאן? יש להזין כתובת אימייל כדי ליצור חשבון עם מפתח גישה.

## The sign-in page's message for its `error` query parameter

signin-error-default = לא ניתן להתחבר.
signin-error-different-account = כדאי לנסות להתחבר עם חשבון אחר.
signin-error-account-not-linked = כדי לאמת את זהותך, יש להתחבר עם אותו חשבון שבו השתמשת במקור.
signin-error-email-send = לא ניתן היה לשלוח את האימייל.
signin-error-credentials = ההתחברות נכשלה. יש לוודא שהפרטים שהוזנו נכונים.
signin-error-session-required = יש להתחבר כדי לגשת לדף הזה.
signin-error-missing-csrf = תוקף טופס ההתחברות פג. יש לנסות שוב.

## Sign-out page

signout-heading = התנתקות
signout-question = להתנתק מהחשבון?
signout-button = התנתקות

## Error page

error-heading-default = שגיאה
error-heading-configuration = שגיאת שרת
error-configuration-problem = יש בעיה בהגדרות השרת.
error-configuration-logs = אפשר לעיין ביומני השרת לקבלת מידע נוסף.
error-heading-access-denied = הגישה נדחתה
error-access-denied = אין לך הרשאה להתחבר.
error-heading-verification = לא ניתן להתחבר
error-verification-invalid = קישור ההתחברות כבר לא בתוקף.
error-verification-used = ייתכן שכבר נעשה בו שימוש או שתוקפו פג.
error-heading-rate-limited = יותר מדי ניסיונות
error-rate-limited-attempts = היו יותר מדי ניסיונות התחברות.
error-rate-limited-wait = יש להמתין מעט ולנסות שוב.
error-signin-button = התחברות

## Verify-request page (after an email link was sent)

verify-heading = יש לבדוק את תיבת האימייל
verify-text = קישור להתחברות נשלח לכתובת האימייל שלך.

## The sign-in email

email-subject = התחברות אל { $host }
email-button = התחברות
email-ignore = אם לא ביקשת את האימייל הזה, אפשר פשוט להתעלם ממנו.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = פרטי התחברות
provider-email = אימייל
provider-passkey = מפתח גישה
provider-password = סיסמה
signin-with-credentials = התחברות עם פרטי התחברות
signin-with-email = התחברות באמצעות אימייל
signin-with-passkey = התחברות באמצעות מפתח גישה
signin-with-password = התחברות

## The `message` of the JSON answers an API caller may show a user

api-configuration = יש בעיה בהגדרות השרת. אפשר לעיין ביומני השרת לקבלת מידע נוסף.
api-overloaded = השרת עמוס. יש לנסות שוב בעוד רגע.
api-rate-limited = יותר מדי ניסיונות. יש לנסות שוב מאוחר יותר.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = בקשת מפתח הגישה בוטלה או שפג תוקפה.
passkey-error-already-registered = מפתח הגישה הזה כבר רשום.
passkey-error-unsupported = הדפדפן או המכשיר הזה לא יכולים להשתמש במפתחות גישה.
passkey-error-insecure = מפתחות גישה אינם זמינים בכתובת הזו.
passkey-error-unverified = לא ניתן היה לאמת את מפתח הגישה.
passkey-error-account-exists = לכתובת האימייל הזו כבר יש חשבון: יש להתחבר עם מפתח הגישה שלו (להשאיר את שדה האימייל ריק, או לבחור את מפתח הגישה מההצעות של שדה האימייל).
passkey-error-ip-address = מפתחות גישה דורשים את שם הדומיין של האתר, לא כתובת IP.
passkey-error-use-localhost = מפתחות גישה דורשים שם, לא כתובת IP: יש לפתוח במקום זאת את { $url }.
passkey-error-failed = ההתחברות עם מפתח הגישה נכשלה ({ $error }).

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = סיסמה
password-new-label = סיסמה חדשה
password-current-label = הסיסמה הנוכחית
password-name-label = שם (לא חובה)
password-forgot-link = שכחת את הסיסמה?
password-signup-link = יצירת חשבון
password-signin-link = כבר יש לך חשבון? התחברות
password-set-link = הגדרת סיסמה
password-signup-heading = יצירת חשבון
password-signup-button = יצירת חשבון
password-forgot-heading = איפוס הסיסמה
password-forgot-text = יש להזין את כתובת האימייל: אם יש חשבון עם הכתובת הזו, נשלח אליה קישור לבחירת סיסמה חדשה.
password-forgot-button = שליחת הקישור
password-reset-heading = בחירת סיסמה חדשה
password-reset-button = שמירת הסיסמה
password-account-heading = החשבון שלך
password-change-heading = שינוי הסיסמה
password-change-button = שינוי הסיסמה
password-email-heading = שינוי כתובת האימייל
password-email-current = הכתובת שלך היא { $email }.
password-email-new-label = כתובת אימייל חדשה
password-email-button = שליחת קישור לאישור
password-delete-heading = מחיקת החשבון
password-delete-text = הפעולה הזו מוחקת את החשבון שלך ואת כל מה שנשמר בו. אי אפשר לבטל אותה.
password-delete-button = מחיקת החשבון שלי
password-changed = הסיסמה שלך שונתה. בוצעה התנתקות מכל שאר ההתחברויות שלך.
password-email-sent = אם הכתובת החדשה יכולה לקבל אותו, נשלח אליה קישור לאישור.
password-email-changed = כתובת האימייל שלך שונתה.
password-check-email = אם הכתובת יכולה לקבל דואר, נשלח אליה קישור. יש לפתוח אותו כדי להמשיך.
password-error-wrong = הסיסמה שגויה.
password-error-none = לחשבון הזה עדיין אין סיסמה: אפשר להגדיר סיסמה דרך הקישור שנשלח לכתובת שלך.
password-error-too-short = הסיסמה צריכה להכיל לפחות { $min } תווים.
password-error-too-long = הסיסמה יכולה להכיל לכל היותר { $max } תווים.
password-error-email = יש להזין כתובת אימייל תקינה.
password-error-same-email = זו כבר כתובת האימייל שלך.
password-error-unverified = יש לאשר קודם את כתובת האימייל: נשלח אליה קישור חדש.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = אישור כתובת האימייל שלך עבור { $host }
password-mail-verify-button = אישור הכתובת
password-mail-verify-note = אם לא יצרת חשבון, אפשר להתעלם מהאימייל הזה: שום דבר לא יקרה.
password-mail-reset-subject = בחירת סיסמה חדשה עבור { $host }
password-mail-reset-button = בחירת סיסמה חדשה
password-mail-reset-note = אם לא ביקשת זאת, אפשר להתעלם מהאימייל הזה: הסיסמה שלך תישאר כפי שהיא.
password-mail-exists-subject = כבר קיים חשבון עם הכתובת הזו באתר { $host }
password-mail-exists-text = מישהו ניסה ליצור חשבון עם כתובת האימייל שלך. כבר יש לך חשבון: אפשר להתחבר, או לבחור סיסמה חדשה דרך הקישור שלמטה.
password-mail-exists-note = אם הפעולה לא בוצעה על ידך, אפשר להתעלם מהאימייל הזה: שום דבר לא השתנה.
password-mail-confirm-subject = אישור כתובת האימייל החדשה שלך עבור { $host }
password-mail-confirm-button = אישור הכתובת החדשה
password-mail-confirm-note = אם לא ביקשת זאת, אפשר להתעלם מהאימייל הזה: שום דבר לא ישתנה.
password-mail-changing-subject = כתובת האימייל שלך באתר { $host } עומדת להשתנות
password-mail-changing-text = מישהו שמחובר לחשבון שלך ביקש לשנות את כתובת האימייל של החשבון לכתובת { $email }.
password-mail-changing-note = אם הבקשה לא נשלחה על ידך, יש לבחור סיסמה חדשה עכשיו: השינוי יתבצע רק אחרי שהכתובת החדשה תאושר.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = מחובר במקומות אחרים
account-sessions-text = החשבון שלך מחובר גם בדפדפנים ובמכשירים שלהלן.
account-sessions-jwt-text = ניתוק כל שאר הדפדפנים והמכשירים שמחוברים לחשבון שלך.
account-sessions-end-others = התנתקות מכל מקום אחר
account-session-unknown-device = דפדפן לא ידוע
account-session-details = רשת { $ip }, פעילות אחרונה { $when }
account-session-active = פעילות אחרונה { $when }
account-session-end = ניתוק המכשיר הזה
account-sessions-ended = בוצעה התנתקות מההתחברויות האלה.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = אימות דו-שלבי
two-factor-text = יש להזין את הקוד שמוצג באפליקציית האימות, או אחד מקודי השחזור.
two-factor-code-label = קוד
two-factor-button = אימות
two-factor-error = הקוד שגוי או שכבר נעשה בו שימוש. נסו את הקוד הבא.
two-factor-cancel = ביטול והתחברות מחדש

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = לא לבקש קוד שוב בדפדפן הזה
account-two-factor-heading = אימות דו-שלבי
account-two-factor-off-text = הגנו על החשבון בקודים מאפליקציית אימות בנוסף לסיסמה.
account-two-factor-setup-button = הגדרה
account-two-factor-on-text = פעיל. קודי שחזור שנותרו: { $count }
account-two-factor-codes-button = קודי שחזור חדשים
account-two-factor-disable-label = קוד מהאפליקציה, קוד שחזור או הסיסמה
account-two-factor-disable-button = כיבוי
account-two-factor-off-notice = האימות הדו-שלבי כבוי.
account-two-factor-wrong = זה לא קוד מהאפליקציה, לא קוד שחזור ולא הסיסמה.
two-factor-on-notice = האימות הדו-שלבי פעיל.
two-factor-setup-heading = הגדרת אימות דו-שלבי
two-factor-setup-text = סרקו את קוד ה-QR באפליקציית האימות, ואז הזינו את הקוד שהיא מציגה.
two-factor-setup-qr-alt = קוד QR לאפליקציית האימות
two-factor-setup-secret = או הזינו את המפתח הזה באפליקציה:
two-factor-setup-open-app = פתיחה באפליקציית האימות במכשיר הזה
two-factor-setup-button = הפעלה
two-factor-codes-heading = קודי השחזור שלכם
two-factor-codes-text = שמרו את הקודים האלה במקום בטוח: כל קוד מאפשר כניסה אחת אם תאבדו את אפליקציית האימות. הם מוצגים רק עכשיו.
two-factor-codes-notice = קודי השחזור החדשים מחליפים את הישנים.
two-factor-back-link = חזרה לחשבון

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = מפתחות גישה
account-passkeys-text = היכנסו בטביעת אצבע, בזיהוי פנים או בנעילת המסך במקום בסיסמה.
account-passkey-add = הוספת מפתח גישה
account-passkey-unnamed = מפתח גישה
account-passkey-details = נוסף ב-{ $when }
account-passkey-remove = הסרה
account-passkey-added = מפתח הגישה נוסף.
account-passkey-removed = מפתח הגישה הוסר.
account-passkey-last = מפתח הגישה הזה הוא הדרך היחידה שלכם להיכנס: הוסיפו דרך אחרת קודם.
