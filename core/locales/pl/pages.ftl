# The built-in pages' and the sign-in email's texts in Polish.
# Same messages as en/pages.ftl (a test checks it).

## Page titles (<title>)

title-signin = Logowanie
title-signout = Wylogowanie
title-error = Błąd
title-verify-request = Weryfikacja adresu e-mail

## Sign-in page

signin-heading = Zaloguj się
signin-with = Zaloguj się przez { $provider }
signin-email-label = E-mail
signin-email-placeholder = email@example.com
signin-passkey-hint = Masz klucz dostępu? Pozostaw pole e-mail puste. Nie masz jeszcze konta? Wpisz swój adres e-mail, aby utworzyć konto z kluczem dostępu.

## The sign-in page's message for its `error` query parameter

signin-error-default = Nie udało się zalogować.
signin-error-different-account = Spróbuj zalogować się na inne konto.
signin-error-account-not-linked = Aby potwierdzić swoją tożsamość, zaloguj się na to samo konto, którego użyto pierwotnie.
signin-error-email-send = Nie udało się wysłać wiadomości e-mail.
signin-error-credentials = Logowanie nie powiodło się. Sprawdź, czy podane dane są poprawne.
signin-error-session-required = Zaloguj się, aby uzyskać dostęp do tej strony.
signin-error-missing-csrf = Formularz logowania wygasł. Spróbuj ponownie.

## Sign-out page

signout-heading = Wyloguj się
signout-question = Czy na pewno chcesz się wylogować?
signout-button = Wyloguj się

## Error page

error-heading-default = Błąd
error-heading-configuration = Błąd serwera
error-configuration-problem = Wystąpił problem z konfiguracją serwera.
error-configuration-logs = Więcej informacji znajdziesz w logach serwera.
error-heading-access-denied = Odmowa dostępu
error-access-denied = Nie masz uprawnień do zalogowania się.
error-heading-verification = Nie można się zalogować
error-verification-invalid = Link do logowania jest już nieważny.
error-verification-used = Mógł zostać już użyty lub wygasnąć.
error-heading-rate-limited = Zbyt wiele prób
error-rate-limited-attempts = Było zbyt wiele prób logowania.
error-rate-limited-wait = Odczekaj chwilę i spróbuj ponownie.
error-signin-button = Zaloguj się

## Verify-request page (after an email link was sent)

verify-heading = Sprawdź swoją skrzynkę e-mail
verify-text = Link do logowania został wysłany na Twój adres e-mail.

## The sign-in email

email-subject = Zaloguj się do { $host }
email-button = Zaloguj się
email-ignore = Jeśli ta wiadomość nie została wysłana na Twoją prośbę, możesz ją bezpiecznie zignorować.

## The built-in providers' default names (when `name` is not set), and
## their sign-in buttons

provider-credentials = Dane logowania
provider-email = E-mail
provider-passkey = Klucz dostępu
signin-with-credentials = Zaloguj się danymi logowania
signin-with-email = Zaloguj się przez e-mail
signin-with-passkey = Zaloguj się kluczem dostępu

## The `message` of the JSON answers an API caller may show a user

api-configuration = Wystąpił problem z konfiguracją serwera. Więcej informacji znajdziesz w logach serwera.
api-overloaded = Serwer jest zajęty. Spróbuj ponownie za chwilę.
api-rate-limited = Zbyt wiele prób. Spróbuj ponownie później.

## The passkey form's messages after a failed ceremony (the sign-in page
## hands them to the browser module). Placeables: $url (where passkeys
## would work), $error (the error's code).

passkey-error-cancelled = Żądanie klucza dostępu zostało anulowane lub wygasło.
passkey-error-already-registered = Ten klucz dostępu jest już zarejestrowany.
passkey-error-unsupported = Ta przeglądarka lub to urządzenie nie obsługuje kluczy dostępu.
passkey-error-insecure = Klucze dostępu nie są dostępne pod tym adresem.
passkey-error-unverified = Nie udało się zweryfikować klucza dostępu.
passkey-error-account-exists = Ten adres e-mail ma już konto: zaloguj się jego kluczem dostępu (zostaw pole e-mail puste lub wybierz klucz dostępu z podpowiedzi pola e-mail).
passkey-error-ip-address = Klucze dostępu wymagają nazwy domeny tej witryny, a nie adresu IP.
passkey-error-use-localhost = Klucze dostępu wymagają nazwy, a nie adresu IP: otwórz zamiast tego { $url }.
passkey-error-failed = Logowanie kluczem dostępu nie powiodło się ({ $error }).
