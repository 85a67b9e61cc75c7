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
signin-with-credentials = התחברות עם פרטי התחברות
signin-with-email = התחברות באמצעות אימייל
signin-with-passkey = התחברות באמצעות מפתח גישה

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
