//! `libauth import better-auth` and `libauth import django`, run as a user
//! runs them (the built binary, real SQLite files, the test machine's
//! PostgreSQL), checked through libauth's engine: the browser's old cookie
//! (`better-auth.session_token`, `sessionid`) is a libauth session once the
//! app names that cookie, and the imported hashes verify with
//! `libauth_core::password`.
//!
//! The source rows come from the real libraries: live Better Auth
//! (`tests/better-auth`, which scripts/test.sh installs: required under
//! `CI`, else skipped with a message when not installed) and live Django
//! (`LIBAUTH_TEST_DJANGO_PYTHON`, else `<repo>/.venv/bin/python`: skipped
//! with a message when there is none, as in CI, where scripts/test.sh makes
//! the venv after the Rust tests and `bindings/python/tests/test_import_django.py`
//! runs a live Django import instead). The other tests replay rows recorded
//! from the same scripts (`tests/import/recorded.json`, written by
//! `tests/import/record.py`), their expiry moved into the future, so they run
//! everywhere.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use libauth_core::password::{Argon2Params, PasswordHasher};
use libauth_core::store::{AccountType, NewUser};
use serde_json::{json, Value};

fn libauth(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_libauth"))
        .args(args)
        .current_dir(dir)
        .env_remove("BETTER_AUTH_SECRET")
        .env_remove("DJANGO_SECRET_KEY")
        .env_remove("DATABASE_URL")
        .output()
        .expect("the libauth binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `libauth` and reads its JSON report, asserting it exited 0.
fn report(dir: &Path, args: &[&str]) -> Value {
    let out = libauth(dir, args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("libauth-import-more-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn postgres_url() -> String {
    std::env::var("LIBAUTH_TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

fn pg() -> postgres::Client {
    postgres::Client::connect(&postgres_url(), postgres::NoTls).unwrap()
}

fn fresh_schema(name: &str) -> String {
    let schema = format!("import_more_{name}_{}", std::process::id());
    pg().batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")).unwrap();
    schema
}

fn drop_schema(schema: &str) {
    pg().batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).unwrap();
}

fn recorded() -> Value {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import/recorded.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import").join(name)
}

/// Inserts JSON rows into a SQLite table, column by column.
fn insert(conn: &rusqlite::Connection, table: &str, rows: &[Value]) {
    for row in rows {
        let row = row.as_object().unwrap();
        let names: Vec<String> = row.keys().map(|k| format!("\"{k}\"")).collect();
        let marks: Vec<String> = (1..=row.len()).map(|i| format!("?{i}")).collect();
        let values: Vec<rusqlite::types::Value> = row
            .values()
            .map(|v| match v {
                Value::Null => rusqlite::types::Value::Null,
                Value::Bool(b) => rusqlite::types::Value::Integer(i64::from(*b)),
                Value::Number(n) => n
                    .as_i64()
                    .map_or_else(|| rusqlite::types::Value::Real(n.as_f64().unwrap()), rusqlite::types::Value::Integer),
                Value::String(s) => rusqlite::types::Value::Text(s.clone()),
                other => rusqlite::types::Value::Text(other.to_string()),
            })
            .collect();
        conn.execute(
            &format!("INSERT INTO \"{table}\" ({}) VALUES ({})", names.join(", "), marks.join(", ")),
            rusqlite::params_from_iter(values),
        )
        .unwrap();
    }
}

const ENGINE_SECRET: &str = "NAIyASU8K883nLyztxK-Wu_QIDqItWTwpEM1dcQtKD0";

/// libauth's engine as the migrated app configures it: database sessions
/// in `adapter`, the session cookie named as the old library named it.
fn engine(adapter: Value, cookie_name: &str) -> libauth_core::Auth {
    let config = json!({
        "secret": ENGINE_SECRET,
        "url": "http://localhost:3000",
        "adapter": adapter,
        "session": { "strategy": "database" },
        "cookies": { "sessionToken": { "name": cookie_name } },
    });
    let config = libauth_core::Config::from_json(&config.to_string()).unwrap();
    libauth_core::Auth::new(config, Arc::new(libauth_core::NoHooks)).unwrap()
}

/// The user id the engine signs a browser in as, given its `Cookie` header.
fn signed_in_as(auth: &libauth_core::Auth, cookie_header: &str) -> Option<String> {
    let session = auth.get_session_by_cookie("http://localhost:3000/", Some(cookie_header)).unwrap()?;
    session.identity().map(|i| i.subject.clone())
}

fn adapter(config: &Value) -> Arc<dyn libauth_core::Adapter> {
    libauth_core::store::from_config(config, Arc::new(libauth_core::NoHooks)).unwrap()
}

/// The stored hash of `user_id`'s password account.
fn password_hash(adapter: &dyn libauth_core::Adapter, user_id: &str) -> Option<String> {
    let user = adapter.get_user_by_account("password", user_id).unwrap()?;
    assert_eq!(user.id, user_id);
    let account = adapter.get_account(user_id, "password").unwrap()?;
    assert_eq!(account.account_type, AccountType::Credentials);
    assert_eq!(account.provider_account_id, user_id);
    account.extra.get("password").and_then(Value::as_str).map(str::to_owned)
}

/// Sign in with libauth's password provider over the imported database, as
/// the migrated app does. The imported addresses were never proven here, so
/// the app either lets them sign in (`requireEmailVerification: false`,
/// here) or each user follows a verification link once.
fn password_sign_in(adapter: &Value, email: &str, password: &str) -> Result<(), libauth_core::AuthError> {
    let config = json!({
        "secret": ENGINE_SECRET,
        "url": "http://localhost:3000",
        "adapter": adapter,
        "providers": [{ "type": "password", "requireEmailVerification": false }],
    });
    let config = libauth_core::Config::from_json(&config.to_string()).unwrap();
    let hooks = libauth_core::HookMap::new().on("providers.password.sendEmail", |_| Ok(Value::Null));
    let auth = libauth_core::Auth::new(config, Arc::new(hooks)).unwrap();
    let fields = serde_json::Map::from_iter([
        ("email".to_owned(), Value::from(email)),
        ("password".to_owned(), Value::from(password)),
    ]);
    let mut request = libauth_core::AuthRequest::post_form("http://localhost:3000/login", &[]);
    request.remote_address = Some("127.0.0.1".into());
    auth.sign_in("password", fields, &request).map(drop)
}

fn verifies(hash: &str, password: &str, memory_kib: u32) -> bool {
    let params = Argon2Params { memory_kib, ..Argon2Params::OWASP };
    PasswordHasher::new(params).unwrap().verify(password, hash).ok
}

fn count(report: &Value, kind: &str, what: &str) -> u64 {
    report["counts"][kind][what].as_u64().unwrap_or_else(|| panic!("{kind}.{what} in {report}"))
}

fn skipped_line<'a>(report: &'a Value, part: &str) -> &'a str {
    report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|l| l.contains(part))
        .unwrap_or_else(|| panic!("no skipped line with {part:?}: {report}"))
}

// ---------------------------------------------------------------- Django

/// Django's `auth_user` and `django_session`, made by Django's `migrate`.
fn django_sqlite_from_recording(path: &Path, recording: &Value) {
    let conn = rusqlite::Connection::open(path).unwrap();
    for ddl in recording["ddl"].as_array().unwrap() {
        conn.execute_batch(ddl.as_str().unwrap()).unwrap();
    }
    insert(&conn, "auth_user", recording["auth_user"].as_array().unwrap());
    insert(&conn, "django_session", recording["django_session"].as_array().unwrap());
    // Recorded sessions last two weeks: moved a week ahead of now (the
    // signature covers the payload, not the expiry).
    let later = libauth_core::store::date::to_iso(libauth_core::time::now_millis() as i64 + 7 * 86_400_000);
    conn.execute("UPDATE django_session SET expire_date = ?1", [later.replace('T', " ").trim_end_matches('Z')])
        .unwrap();
}

/// What every Django import must have done, whatever the database.
fn check_django_import(made: &Value, report: &Value, target: &Value, dir: &Path, args: &[&str]) {
    let users = &made["users"];
    let has = |name: &str| users.get(name).is_some();
    // ada, bob, erin, frank, and carol and dan when argon2 / bcrypt were installed;
    // gone is inactive.
    let expected_users = 4 + u64::from(has("carol")) + u64::from(has("dan"));
    assert_eq!(count(report, "users", "written"), expected_users, "{report}");
    assert_eq!(count(report, "users", "skipped"), 1);
    assert!(skipped_line(report, &format!("users {}", users["gone"]["id"].as_str().unwrap())).contains("inactive"));
    // Passwords: ada, bob, carol, dan; not erin's (bcrypt_sha256, or md5
    // without the bcrypt package), not frank's unusable one.
    assert_eq!(count(report, "accounts", "written"), expected_users - 2, "{report}");
    let erin = skipped_line(report, &format!("accounts password/{}:", users["erin"]["id"].as_str().unwrap()));
    assert!(erin.contains("not a format libauth verifies"), "{erin}");
    if has("dan") {
        assert!(erin.contains("bcrypt_sha256"), "{erin}");
    }
    assert!(skipped_line(report, "unusable").contains(users["frank"]["id"].as_str().unwrap()));
    // Sessions: ada's and bob's (compressed) written; the anonymous one counted.
    assert_eq!(count(report, "sessions", "written"), 2, "{report}");
    assert_eq!(count(report, "sessions", "skipped"), 1);
    assert!(users["bob"]["compressed"].as_bool().unwrap(), "bob's session is zlib-compressed");
    let text = report.to_string();
    for cookie in [&made["superuser"]["cookie"], &users["bob"]["cookie"], &made["anonymous"]] {
        assert!(!text.contains(cookie.as_str().unwrap()), "session keys are never printed");
    }

    let store = adapter(target);
    let ada = made["superuser"]["id"].as_str().unwrap();
    let user = store.get_user(ada).unwrap().unwrap();
    assert_eq!(user.name.as_deref(), Some("Ada Lovelace"));
    assert_eq!(user.email.as_deref(), Some("ada@example.com"));
    assert_eq!(user.email_verified, None, "Django never proved the address");
    let bob = store.get_user(users["bob"]["id"].as_str().unwrap()).unwrap().unwrap();
    assert_eq!((bob.name.as_deref(), bob.email.as_deref()), (Some("bob"), None), "the username; no empty email");
    assert!(store.get_user(users["gone"]["id"].as_str().unwrap()).unwrap().is_none());

    // The hashes verify with libauth's password module.
    let ada_hash = password_hash(&*store, ada).unwrap();
    assert!(ada_hash.starts_with("pbkdf2_sha256$"));
    // (600,000 PBKDF2 rounds take seconds unoptimised: verified once.)
    assert!(verifies(&ada_hash, made["superuser"]["password"].as_str().unwrap(), 19 * 1024));
    let bob_hash = password_hash(&*store, users["bob"]["id"].as_str().unwrap()).unwrap();
    assert_eq!(bob_hash, users["bob"]["stored"].as_str().unwrap(), "exactly as Django stored it");
    for name in ["carol", "dan"] {
        let Some(u) = users.get(name) else { continue };
        let hash = password_hash(&*store, u["id"].as_str().unwrap()).unwrap();
        let stored = u["stored"].as_str().unwrap();
        assert!(stored.ends_with(&hash[1..]), "the hash Django stored, its algorithm prefix aside: {stored}");
        // Django's Argon2 uses 100 MiB: verified once memoryKib allows it.
        assert!(verifies(&hash, u["password"].as_str().unwrap(), 102_400), "{name}");
        assert!(!verifies(&hash, "wrong", 102_400), "{name}");
    }
    if has("carol") {
        assert!(report["notes"].to_string().contains("m=102400"), "{report}");
    }
    assert!(password_hash(&*store, users["erin"]["id"].as_str().unwrap()).is_none());
    assert!(password_hash(&*store, users["frank"]["id"].as_str().unwrap()).is_none());

    // The superuser signs in with the password provider, and the Django
    // hash is replaced by libauth's Argon2id.
    let password = made["superuser"]["password"].as_str().unwrap();
    assert!(password_sign_in(target, "ada@example.com", "not the password").is_err());
    password_sign_in(target, "ada@example.com", password).expect("the imported password signs in");
    assert!(password_hash(&*store, ada).unwrap().starts_with("$argon2id$"), "upgraded at sign-in");

    // The browser's `sessionid` cookie is a libauth session once the app
    // names that cookie.
    let auth = engine(target.clone(), "sessionid");
    let cookie = |key: &Value| format!("csrftoken=x; sessionid={}", key.as_str().unwrap());
    assert_eq!(signed_in_as(&auth, &cookie(&made["superuser"]["cookie"])).as_deref(), Some(ada));
    assert_eq!(signed_in_as(&auth, &cookie(&users["bob"]["cookie"])), users["bob"]["id"].as_str().map(str::to_owned));
    assert_eq!(signed_in_as(&auth, &cookie(&made["anonymous"])), None);
    assert_eq!(signed_in_as(&auth, "sessionid=not-a-session"), None);

    // A second run writes nothing.
    let again = report_of(dir, args);
    for kind in ["users", "accounts", "sessions"] {
        assert_eq!(count(&again, kind, "written"), 0, "{kind}: {again}");
    }
    assert_eq!(count(&again, "users", "present"), expected_users);
    assert_eq!(count(&again, "sessions", "present"), 2);
}

fn report_of(dir: &Path, args: &[&str]) -> Value {
    report(dir, args)
}

#[test]
fn import_django_recorded_rows_into_sqlite_with_and_without_the_secret_key() {
    let dir = folder("django");
    let recording = recorded()["django"].clone();
    django_sqlite_from_recording(&dir.join("django.sqlite3"), &recording);
    let made = &recording["made"];

    // A dry run counts and creates nothing.
    let dry = report(&dir, &["import", "django", "--from", "django.sqlite3", "--to", "dry.db", "--dry-run", "--json"]);
    assert_eq!(count(&dry, "sessions", "written"), 2, "{dry}");
    assert!(!dir.join("dry.db").exists());

    // Another source's secret is a usage error.
    let out =
        libauth(&dir, &["import", "django", "--from", "django.sqlite3", "--to", "x.db", "--better-auth-secret", "s"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("x.db").exists());

    // With the wrong SECRET_KEY every signed session is refused.
    let wrong = report(
        &dir,
        &["import", "django", "--from", "django.sqlite3", "--to", "wrong.db", "--django-secret-key", "nope", "--json"],
    );
    assert_eq!(count(&wrong, "sessions", "written"), 0, "{wrong}");
    assert!(skipped_line(&wrong, "sessions row").contains("does not match --django-secret-key"));

    let key = recording["secret_key"].as_str().unwrap();
    let args = ["import", "django", "--from", "sqlite:django.sqlite3", "--to", "sqlite:libauth.db", "--json"];
    let mut with_key = args.to_vec();
    with_key.extend(["--django-secret-key", key]);
    let first = report(&dir, &with_key);
    let target = json!({ "type": "sqlite", "path": dir.join("libauth.db").display().to_string() });
    check_django_import(made, &first, &target, &dir, &args);
}

/// A Python with Django, argon2-cffi and bcrypt, if this machine has one.
fn django_python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("LIBAUTH_TEST_DJANGO_PYTHON").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|python| Command::new(python).args(["-c", "import django"]).output().is_ok_and(|o| o.status.success()))
}

#[test]
fn import_django_live_into_postgres() {
    let Some(python) = django_python() else {
        eprintln!("skipped: no Python with Django (LIBAUTH_TEST_DJANGO_PYTHON, or .venv at the repository's root)");
        return;
    };
    let dir = folder("django-live");
    let db = dir.join("django.sqlite3");
    let key = "django-insecure-a-live-key";
    let out = Command::new(python).arg(script("django_source.py")).arg(&db).arg(key).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();

    let schema = fresh_schema("django");
    let url = postgres_url();
    let args = [
        "import",
        "django",
        "--from",
        db.to_str().unwrap(),
        "--to",
        url.as_str(),
        "--to-schema",
        schema.as_str(),
        "--django-secret-key",
        key,
        "--json",
    ];
    let first = report(&dir, &args);
    let target = json!({ "type": "postgres", "url": url, "schema": schema });
    check_django_import(&made, &first, &target, &dir, &args);
    drop_schema(&schema);
}

// ----------------------------------------------------------- Better Auth

/// Better Auth's tables in SQLite (its Kysely migration's columns), with
/// the recorded user, credential account and sessions, and rows only a
/// hand can make here: an OAuth account, a passkey, a verification row, a
/// session of a user who is not there.
fn better_auth_sqlite(path: &Path, recording: &Value) {
    let conn = rusqlite::Connection::open(path).unwrap();
    // SQLite enforces foreign keys only when asked: the orphan account
    // below is what a database written without them can hold.
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    conn.execute_batch(
        r#"
        CREATE TABLE "user" ("id" text not null primary key, "name" text not null, "email" text not null unique,
          "emailVerified" integer not null, "image" text, "createdAt" date not null, "updatedAt" date not null);
        CREATE TABLE "session" ("id" text not null primary key, "expiresAt" date not null, "token" text not null unique,
          "createdAt" date not null, "updatedAt" date not null, "ipAddress" text, "userAgent" text,
          "userId" text not null references "user" ("id") on delete cascade);
        CREATE TABLE "account" ("id" text not null primary key, "accountId" text not null, "providerId" text not null,
          "userId" text not null references "user" ("id") on delete cascade, "accessToken" text, "refreshToken" text,
          "idToken" text, "accessTokenExpiresAt" date, "refreshTokenExpiresAt" date, "scope" text, "password" text,
          "createdAt" date not null, "updatedAt" date not null);
        CREATE TABLE "verification" ("id" text not null primary key, "identifier" text not null, "value" text not null,
          "expiresAt" date not null, "createdAt" date not null, "updatedAt" date not null);
        CREATE TABLE "passkey" ("id" text not null primary key, "name" text, "publicKey" text not null,
          "userId" text not null references "user" ("id") on delete cascade, "credentialID" text not null,
          "counter" integer not null, "deviceType" text not null, "backedUp" integer not null, "transports" text,
          "createdAt" date, "aaguid" text);
        "#,
    )
    .unwrap();
    let now = libauth_core::time::now_millis() as i64;
    let later = libauth_core::store::date::to_iso(now + 7 * 86_400_000);
    let mut sessions = recording["session"].as_array().unwrap().clone();
    for s in &mut sessions {
        s["expiresAt"] = json!(later);
    }
    insert(&conn, "user", recording["user"].as_array().unwrap());
    insert(&conn, "account", recording["account"].as_array().unwrap());
    insert(&conn, "session", &sessions);
    let user = recording["made"]["userId"].as_str().unwrap();
    insert(
        &conn,
        "user",
        &[json!({ "id": "grace", "name": "Grace", "email": "grace@example.com", "emailVerified": 1,
                  "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-02-01T00:00:00.000Z" })],
    );
    insert(
        &conn,
        "account",
        &[
            json!({ "id": "a2", "accountId": "gh-42", "providerId": "github", "userId": "grace", "accessToken": "gho_x",
                    "refreshToken": null, "idToken": null, "accessTokenExpiresAt": "2030-01-01T00:00:00.000Z",
                    "scope": "read:user,user:email", "password": null, "createdAt": "2026-01-01T00:00:00.000Z",
                    "updatedAt": "2026-01-01T00:00:00.000Z" }),
            json!({ "id": "a3", "accountId": "ghost", "providerId": "credential", "userId": "ghost",
                    "password": "00:00", "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z" }),
        ],
    );
    insert(
        &conn,
        "verification",
        &[json!({ "id": "v1", "identifier": "reset-password:secret-reset-token", "value": user,
                  "expiresAt": later, "createdAt": later, "updatedAt": later })],
    );
    // SimpleWebAuthn's credential id (base64url), Better Auth's
    // `base64.encode` of the COSE key (standard, padded here, unpadded in
    // some versions: both read).
    insert(
        &conn,
        "passkey",
        &[
            json!({ "id": "p1", "name": "Laptop", "publicKey": "pQECAyYgASFYIBI0VniavN7wEjRWeJq83vASNFZ4mrze8BI0VniavN7w",
                  "userId": user, "credentialID": "q83vEjRWeJq83vASNFZ4mg", "counter": 7, "deviceType": "multiDevice",
                  "backedUp": 1, "transports": "internal,hybrid", "createdAt": "2026-03-01T00:00:00.000Z", "aaguid": null }),
        ],
    );
}

fn check_better_auth_import(made: &Value, secret: &str, report: &Value, target: &Value, hand_rows: bool) {
    let user = made["userId"].as_str().unwrap();
    assert_eq!(count(report, "sessions", "written"), 2, "{report}");
    assert!(!report.to_string().contains(&made["cookies"][0].as_str().unwrap()[..32]), "tokens never printed");
    let store = adapter(target);
    let ada = store.get_user(user).unwrap().unwrap();
    assert_eq!((ada.name.as_deref(), ada.email.as_deref()), (Some("Ada"), Some("ada@example.com")));
    assert_eq!(ada.email_verified, None, "emailVerified false stays unproven");

    // The password account holds Better Auth's scrypt hash, and it verifies.
    let hash = password_hash(&*store, user).unwrap();
    assert!(hash.contains(':') && hash.len() == 32 + 1 + 128, "{hash}");
    assert!(verifies(&hash, made["password"].as_str().unwrap(), 19 * 1024));
    assert!(!verifies(&hash, "wrong", 19 * 1024));
    password_sign_in(target, "ada@example.com", made["password"].as_str().unwrap())
        .expect("the imported password signs in");
    assert!(password_hash(&*store, user).unwrap().starts_with("$argon2id$"), "upgraded at sign-in");

    // The browser's cookie, exactly as Better Auth set it (URL-encoded,
    // signed), is a libauth session once the app names the cookie.
    let auth = engine(target.clone(), "better-auth.session_token");
    for cookie in made["cookies"].as_array().unwrap() {
        let header = format!("better-auth.session_token={}", cookie.as_str().unwrap());
        assert_eq!(signed_in_as(&auth, &header).as_deref(), Some(user), "{header}");
    }
    // Its token alone, or signed with another secret, is nobody.
    let token = made["cookies"][0].as_str().unwrap().split('.').next().unwrap();
    assert_eq!(signed_in_as(&auth, &format!("better-auth.session_token={token}")), None);
    assert_ne!(secret, "other");

    if hand_rows {
        let grace = store.get_user("grace").unwrap().unwrap();
        assert_eq!(grace.email_verified, libauth_core::store::date::parse_iso("2026-02-01T00:00:00.000Z"));
        let github = store.get_account("grace", "github").unwrap().unwrap();
        assert_eq!(github.provider_account_id, "gh-42");
        assert_eq!(github.access_token.as_deref(), Some("gho_x"));
        assert_eq!(github.expires_at, Some(1_893_456_000));
        assert!(skipped_line(report, "accounts credential/ghost").contains("user was not imported"));
        let line = skipped_line(report, "verification tokens #v1");
        assert!(line.contains("no libauth equivalent"), "{line}");
        assert!(!report.to_string().contains("secret-reset-token"), "a verification identifier is never printed");

        let passkey = store.get_authenticator("q83vEjRWeJq83vASNFZ4mg").unwrap().unwrap();
        assert_eq!(passkey.user_id, user);
        assert_eq!(passkey.credential_public_key, "pQECAyYgASFYIBI0VniavN7wEjRWeJq83vASNFZ4mrze8BI0VniavN7w");
        assert_eq!((passkey.counter, passkey.credential_backed_up), (7, true));
        assert_eq!(passkey.credential_device_type, "multiDevice");
        assert_eq!(passkey.transports.as_deref(), Some("internal,hybrid"));
        assert_eq!(passkey.name.as_deref(), Some("Laptop"));
        // Its passkey account, as libauth's own registration links one.
        assert_eq!(store.get_user_by_account("passkey", "q83vEjRWeJq83vASNFZ4mg").unwrap().unwrap().id, user);
    }
}

#[test]
fn import_better_auth_recorded_rows_from_sqlite_needs_the_secret_for_sessions_and_is_idempotent() {
    let dir = folder("better-auth");
    let recording = recorded()["better_auth"].clone();
    better_auth_sqlite(&dir.join("better-auth.sqlite"), &recording);
    let secret = recording["secret"].as_str().unwrap();

    // libauth already has a user with Grace's address: not merged.
    let target = json!({ "type": "sqlite", "path": dir.join("libauth.db").display().to_string() });
    adapter(&target)
        .create_user(&NewUser {
            id: Some("other".into()),
            email: Some("grace@example.com".into()),
            ..Default::default()
        })
        .unwrap();

    // Without the secret: everything but the sessions, which say why.
    let args = ["import", "better-auth", "--from", "better-auth.sqlite", "--to", "sqlite:libauth.db", "--json"];
    let without = report(&dir, &args);
    assert_eq!(count(&without, "sessions", "written"), 0);
    assert_eq!(count(&without, "sessions", "skipped"), 2);
    assert!(skipped_line(&without, "sessions #").contains("--better-auth-secret"));
    assert_eq!(count(&without, "users", "written"), 1, "{without}");
    assert!(skipped_line(&without, "users grace").contains("not merged"));

    // With it (here from BETTER_AUTH_SECRET), the sessions too; the rest is there.
    let out = Command::new(env!("CARGO_BIN_EXE_libauth"))
        .args(args)
        .current_dir(&dir)
        .env("BETTER_AUTH_SECRET", secret)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let with: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(count(&with, "users", "present"), 1, "{with}");
    assert_eq!(count(&with, "accounts", "present"), 1);
    assert_eq!(count(&with, "passkeys", "present"), 1);
    // Grace was skipped, so her GitHub account is too.
    check_better_auth_import(&recording["made"], secret, &with, &target, false);

    // Into a fresh database with the flag: everything, checked in full.
    let mut flagged =
        vec!["import", "better-auth", "--from", "better-auth.sqlite", "--to", "sqlite:fresh.db", "--json"];
    flagged.extend(["--better-auth-secret", secret]);
    let fresh = report(&dir, &flagged);
    assert_eq!(count(&fresh, "users", "written"), 2, "{fresh}");
    assert_eq!(count(&fresh, "accounts", "written"), 2);
    assert_eq!(count(&fresh, "passkeys", "written"), 1);
    let fresh_target = json!({ "type": "sqlite", "path": dir.join("fresh.db").display().to_string() });
    check_better_auth_import(&recording["made"], secret, &fresh, &fresh_target, true);
    let again = report(&dir, &flagged);
    for kind in ["users", "accounts", "sessions", "passkeys"] {
        assert_eq!(count(&again, kind, "written"), 0, "{kind}: {again}");
    }
    assert_eq!(count(&again, "sessions", "present"), 2);
    assert_eq!(count(&again, "passkeys", "present"), 1);

    // A wrong secret: the sessions land under cookies no browser holds.
    let wrong = report(
        &dir,
        &[
            "import",
            "better-auth",
            "--from",
            "better-auth.sqlite",
            "--to",
            "sqlite:wrong.db",
            "--better-auth-secret",
            "other",
            "--json",
        ],
    );
    let wrong_target = json!({ "type": "sqlite", "path": dir.join("wrong.db").display().to_string() });
    let auth = engine(wrong_target, "better-auth.session_token");
    let header = format!("better-auth.session_token={}", recording["made"]["cookies"][0].as_str().unwrap());
    assert_eq!(count(&wrong, "sessions", "written"), 2);
    assert_eq!(signed_in_as(&auth, &header), None);

    // Not a Better Auth database: said so.
    std::fs::write(dir.join("empty.db"), b"").unwrap();
    let out = libauth(&dir, &["import", "better-auth", "--from", "empty.db", "--to", "x.db"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no users table"), "{}", stderr(&out));
}

#[test]
fn import_better_auth_live_from_postgres() {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/better-auth");
    if !modules.join("node_modules/better-auth").exists() {
        assert!(std::env::var_os("CI").is_none(), "scripts/test.sh installs tests/better-auth (npm ci)");
        eprintln!("skipped: tests/better-auth is not installed (npm ci --prefix tests/better-auth)");
        return;
    }
    let schema = fresh_schema("better_auth");
    let url = postgres_url();
    let secret = "a-live-better-auth-secret-of-some-length";
    let out = Command::new("node")
        .arg(modules.join("source.mjs"))
        .args([url.as_str(), schema.as_str(), secret])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();

    let dir = folder("better-auth-live");
    let args = [
        "import",
        "better-auth",
        "--from",
        url.as_str(),
        "--from-schema",
        schema.as_str(),
        "--to",
        "sqlite:libauth.db",
        "--better-auth-secret",
        secret,
        "--json",
    ];
    let first = report(&dir, &args);
    assert_eq!(count(&first, "users", "written"), 1, "{first}");
    assert_eq!(count(&first, "accounts", "written"), 1);
    let target = json!({ "type": "sqlite", "path": dir.join("libauth.db").display().to_string() });
    check_better_auth_import(&made, secret, &first, &target, false);
    let again = report(&dir, &args);
    assert_eq!(count(&again, "sessions", "present"), 2, "{again}");
    assert_eq!(count(&again, "sessions", "written"), 0);
    drop_schema(&schema);
}
