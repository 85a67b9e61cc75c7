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
provider-password = Hasło
signin-with-credentials = Zaloguj się danymi logowania
signin-with-email = Zaloguj się przez e-mail
signin-with-passkey = Zaloguj się kluczem dostępu
signin-with-password = Zaloguj się

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

## The password provider's pages (sign-up, forgotten password, reset,
## account). Placeables: $min and $max (lengths), $email (an address).

password-label = Hasło
password-new-label = Nowe hasło
password-current-label = Obecne hasło
password-name-label = Imię i nazwisko (opcjonalnie)
password-forgot-link = Nie pamiętasz hasła?
password-signup-link = Utwórz konto
password-signin-link = Masz już konto? Zaloguj się
password-set-link = Ustaw hasło
password-signup-heading = Utwórz konto
password-signup-button = Utwórz konto
password-forgot-heading = Zresetuj hasło
password-forgot-text = Wpisz swój adres e-mail: jeśli jest z nim powiązane konto, wyślemy na niego link do ustawienia nowego hasła.
password-forgot-button = Wyślij link
password-reset-heading = Wybierz nowe hasło
password-reset-button = Zapisz hasło
password-account-heading = Twoje konto
password-change-heading = Zmień hasło
password-change-button = Zmień hasło
password-email-heading = Zmień adres e-mail
password-email-current = Twój adres to { $email }.
password-email-new-label = Nowy adres e-mail
password-email-button = Wyślij link potwierdzający
password-delete-heading = Usuń konto
password-delete-text = Spowoduje to usunięcie Twojego konta i wszystkiego, co jest z nim przechowywane. Tej operacji nie można cofnąć.
password-delete-button = Usuń moje konto
password-changed = Hasło zostało zmienione. Twoje pozostałe sesje zostały wylogowane.
password-email-sent = Jeśli nowy adres może odbierać wiadomości, wysłano na niego link potwierdzający.
password-email-changed = Twój adres e-mail został zmieniony.
password-check-email = Jeśli ten adres może odbierać wiadomości, wysłano na niego link. Otwórz go, aby kontynuować.
password-error-wrong = Hasło jest nieprawidłowe.
password-error-none = To konto nie ma jeszcze hasła: ustaw je za pomocą linku wysłanego na Twój adres.
password-error-too-short = Hasło jest za krótkie (minimalna liczba znaków: { $min }).
password-error-too-long = Hasło jest za długie (maksymalna liczba znaków: { $max }).
password-error-email = Wpisz prawidłowy adres e-mail.
password-error-same-email = To jest już Twój adres e-mail.
password-error-unverified = Najpierw potwierdź swój adres e-mail: wysłano na niego nowy link.

## The password provider's emails. Placeables: $host (the site), $email
## (the new address).

password-mail-verify-subject = Potwierdź swój adres e-mail w serwisie { $host }
password-mail-verify-button = Potwierdź adres
password-mail-verify-note = Jeśli konto nie zostało utworzone przez Ciebie, zignoruj tę wiadomość: nic się nie stanie.
password-mail-reset-subject = Wybierz nowe hasło w serwisie { $host }
password-mail-reset-button = Wybierz nowe hasło
password-mail-reset-note = Jeśli ta prośba nie pochodzi od Ciebie, zignoruj tę wiadomość: Twoje hasło pozostanie bez zmian.
password-mail-exists-subject = Konto z tym adresem już istnieje w serwisie { $host }
password-mail-exists-text = Ktoś próbował utworzyć konto z Twoim adresem e-mail. Masz już konto: zaloguj się lub wybierz nowe hasło za pomocą poniższego linku.
password-mail-exists-note = Jeśli to nie Ty, zignoruj tę wiadomość: nic nie zostało zmienione.
password-mail-confirm-subject = Potwierdź swój nowy adres e-mail w serwisie { $host }
password-mail-confirm-button = Potwierdź nowy adres
password-mail-confirm-note = Jeśli ta prośba nie pochodzi od Ciebie, zignoruj tę wiadomość: nic się nie zmieni.
password-mail-changing-subject = Twój adres e-mail w serwisie { $host } zostanie zmieniony
password-mail-changing-text = Ktoś zalogowany na Twoje konto poprosił o zmianę przypisanego do niego adresu e-mail na { $email }.
password-mail-changing-note = Jeśli to nie Ty, od razu wybierz nowe hasło: zmiana nastąpi dopiero po potwierdzeniu nowego adresu.

## The account page's list of sessions. Placeables: $ip (a network such
## as 203.0.113.0/24), $when (a date and time, UTC).

account-sessions-heading = Zalogowano gdzie indziej
account-sessions-text = Twoje konto jest zalogowane także w poniższych przeglądarkach i na poniższych urządzeniach.
account-sessions-jwt-text = Wyloguj wszystkie inne przeglądarki i urządzenia zalogowane na Twoje konto.
account-sessions-end-others = Wyloguj wszędzie indziej
account-session-unknown-device = Nieznana przeglądarka
account-session-details = Sieć { $ip }, ostatnia aktywność { $when }
account-session-active = Ostatnia aktywność { $when }
account-session-end = Wyloguj to urządzenie
account-sessions-ended = Te sesje zostały wylogowane.

## The second step of a sign-in (a code from an authenticator app).

two-factor-heading = Weryfikacja dwuetapowa
two-factor-text = Wpisz kod z aplikacji uwierzytelniającej lub jeden z kodów odzyskiwania.
two-factor-code-label = Kod
two-factor-button = Zweryfikuj
two-factor-error = Ten kod jest nieprawidłowy albo został już użyty. Spróbuj następnego.
two-factor-cancel = Anuluj i zaloguj się ponownie

## The account page's second factor (turning it on and off, recovery
## codes) and trusting a browser at the second step. Placeable: $count
## (how many recovery codes are left).

two-factor-trust-label = Nie pytaj więcej o kod w tej przeglądarce
account-two-factor-heading = Uwierzytelnianie dwuskładnikowe
account-two-factor-off-text = Chroń konto kodami z aplikacji uwierzytelniającej, oprócz hasła.
account-two-factor-setup-button = Skonfiguruj
account-two-factor-on-text = Włączone. Pozostałe kody odzyskiwania: { $count }
account-two-factor-codes-button = Nowe kody odzyskiwania
account-two-factor-disable-label = Kod z aplikacji, kod odzyskiwania lub hasło
account-two-factor-disable-button = Wyłącz
account-two-factor-off-notice = Uwierzytelnianie dwuskładnikowe jest wyłączone.
account-two-factor-wrong = To nie jest kod z aplikacji, kod odzyskiwania ani Twoje hasło.
two-factor-on-notice = Uwierzytelnianie dwuskładnikowe jest włączone.
two-factor-setup-heading = Skonfiguruj uwierzytelnianie dwuskładnikowe
two-factor-setup-text = Zeskanuj kod QR aplikacją uwierzytelniającą, a potem wpisz wyświetlony w niej kod.
two-factor-setup-qr-alt = Kod QR dla aplikacji uwierzytelniającej
two-factor-setup-secret = Albo wpisz ten klucz w aplikacji:
two-factor-setup-open-app = Otwórz w aplikacji uwierzytelniającej na tym urządzeniu
two-factor-setup-button = Włącz
two-factor-codes-heading = Twoje kody odzyskiwania
two-factor-codes-text = Przechowuj te kody w bezpiecznym miejscu: każdy pozwala zalogować się raz, jeśli stracisz aplikację uwierzytelniającą. Są pokazywane tylko teraz.
two-factor-codes-notice = Nowe kody odzyskiwania zastępują poprzednie.
two-factor-back-link = Wróć do konta

## The account page's passkeys. Placeable: $when (a date and time, UTC).

account-passkeys-heading = Klucze dostępu
account-passkeys-text = Loguj się odciskiem palca, twarzą lub blokadą ekranu zamiast hasła.
account-passkey-add = Dodaj klucz dostępu
account-passkey-unnamed = Klucz dostępu
account-passkey-details = Dodano { $when }
account-passkey-remove = Usuń
account-passkey-added = Klucz dostępu został dodany.
account-passkey-removed = Klucz dostępu został usunięty.
account-passkey-last = Ten klucz dostępu to Twój jedyny sposób logowania: najpierw dodaj inny.
