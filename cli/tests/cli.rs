//! The `libauth` command, run as a user runs it: the built binary, real
//! files, a real SQLite file and the PostgreSQL and Redis of the test
//! machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn libauth(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_libauth"))
        .args(args)
        .current_dir(dir)
        .env_remove("AUTH_SECRET")
        .env_remove("AUTH_URL")
        .env_remove("AUTH_TRUST_HOST")
        .env_remove("DATABASE_URL")
        .output()
        .expect("the libauth binary runs")
}

fn with_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_libauth"));
    command.args(args).current_dir(dir).env_remove("AUTH_SECRET").env_remove("AUTH_URL").env_remove("AUTH_TRUST_HOST");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("the libauth binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

/// A fresh, empty folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("libauth-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn postgres_url() -> String {
    std::env::var("LIBAUTH_TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A schema name no other test run uses.
fn fresh_schema(name: &str) -> String {
    format!("cli_{name}_{}", std::process::id())
}

fn drop_schema(schema: &str) {
    let mut client = postgres::Client::connect(&postgres_url(), postgres::NoTls).unwrap();
    client.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).unwrap();
}

const SECRET: &str = "NAIyASU8K883nLyztxK-Wu_QIDqItWTwpEM1dcQtKD0";

#[test]
fn usage_errors_are_one_line_and_exit_2_and_help_exits_0() {
    let dir = folder("usage");
    let out = libauth(&dir, &["secret", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("--bogus"));
    assert_eq!(libauth(&dir, &["nope"]).status.code(), Some(2));
    assert_eq!(libauth(&dir, &["migrate", "--to", "x"]).status.code(), Some(2));
    for sub in [
        &["--help"][..],
        &["secret", "--help"],
        &["doctor", "--help"],
        &["migrate", "--help"],
        &["provider", "add", "--help"],
    ] {
        let out = libauth(&dir, sub);
        assert_eq!(out.status.code(), Some(0), "{sub:?}");
        assert!(stdout(&out).contains("Usage:"), "{sub:?}");
    }
}

#[test]
fn secret_writes_a_new_one_refuses_to_overwrite_and_rotates_keeping_the_old_second() {
    let dir = folder("secret");
    std::fs::write(dir.join(".env"), "DATABASE=x\n").unwrap();
    let out = libauth(&dir, &["secret"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.join(".env")).unwrap();
    assert!(text.starts_with("DATABASE=x\n"));
    let first = text.lines().find_map(|l| l.strip_prefix("AUTH_SECRET=")).unwrap().to_owned();
    assert_eq!(first.len(), 43);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(dir.join(".env")).unwrap().permissions().mode() & 0o777, 0o600);
    }
    assert!(!stdout(&out).contains(&first), "the secret is not printed");

    // A second run would sign everyone out: refused.
    let out = libauth(&dir, &["secret"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--rotate"));
    assert_eq!(std::fs::read_to_string(dir.join(".env")).unwrap(), text, "unchanged");

    let out = libauth(&dir, &["secret", "--rotate"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.join(".env")).unwrap();
    let get = |name: &str| text.lines().find_map(|l| l.strip_prefix(&format!("{name}="))).map(str::to_owned);
    assert_eq!(get("AUTH_SECRET").as_deref(), Some(first.as_str()));
    let newer = get("AUTH_SECRET_1").unwrap();
    assert_ne!(newer, first);

    // The engine reads them new first, old second.
    struct Vars(Vec<(String, String)>);
    impl libauth_core::Env for Vars {
        fn var(&self, name: &str) -> Option<String> {
            self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        }
    }
    let env = Vars(vec![("AUTH_SECRET".into(), first.clone()), ("AUTH_SECRET_1".into(), newer.clone())]);
    let settings = libauth_core::Settings::resolve(&libauth_core::Config::default(), &env).unwrap();
    assert_eq!(settings.secrets, [newer.clone(), first.clone()]);

    // Rotating again keeps both, up to the four names the engine reads;
    // past them the oldest goes.
    assert_eq!(libauth(&dir, &["secret", "--rotate"]).status.code(), Some(0));
    let read = || {
        let text = std::fs::read_to_string(dir.join(".env")).unwrap();
        let vars: Vec<(String, String)> = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .filter(|(k, _)| k.starts_with("AUTH_SECRET"))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        libauth_core::Settings::resolve(&libauth_core::Config::default(), &Vars(vars)).unwrap().secrets
    };
    let three = read();
    assert_eq!(three.len(), 3);
    assert_eq!(three[1..], [newer.clone(), first.clone()]);
    assert_eq!(libauth(&dir, &["secret", "--rotate"]).status.code(), Some(0));
    assert_eq!(read().len(), 4);
    let out = libauth(&dir, &["secret", "--rotate"]);
    assert!(stdout(&out).contains("oldest 1 dropped"), "{}", stdout(&out));
    let four = read();
    assert_eq!(four.len(), 4);
    assert!(!four.contains(&first), "the oldest went");
    assert_eq!(four[3], newer);

    // --force replaces; --print writes nothing.
    assert_eq!(libauth(&dir, &["secret", "--force"]).status.code(), Some(0));
    let text = std::fs::read_to_string(dir.join(".env")).unwrap();
    assert!(!text.contains("AUTH_SECRET_1") && !text.contains(&newer));
    let out = libauth(&dir, &["secret", "--print", "--json"]);
    assert_eq!(json(&out)["AUTH_SECRET"].as_str().unwrap().len(), 43);
    assert_eq!(std::fs::read_to_string(dir.join(".env")).unwrap(), text);

    // Rotating a file with no secret is an error, and writes nothing.
    let out = libauth(&dir, &["secret", "--rotate", "--env-file", "other.env"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.join("other.env").exists());
}

#[test]
fn migrate_on_sqlite_status_dry_run_apply_down_and_a_newer_database() {
    let dir = folder("sqlite");
    // Status and dry run create nothing.
    let out = libauth(&dir, &["migrate", "--database", "sqlite:auth.db", "--status", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = json(&out);
    assert_eq!(status["version"], 0);
    let latest = status["latest"].as_u64().unwrap();
    assert!(latest >= 3);
    let out = libauth(&dir, &["migrate", "--database", "auth.db", "--dry-run"]);
    assert!(stdout(&out).contains("CREATE TABLE users"));
    assert!(!dir.join("auth.db").exists(), "a dry run creates no file");

    let out = libauth(&dir, &["migrate", "--database", "auth.db", "--json"]);
    assert_eq!(json(&out)["to"], latest);
    let out = libauth(&dir, &["migrate", "--database", "auth.db"]);
    assert!(stdout(&out).contains("already at schema version"), "{}", stdout(&out));

    let out = libauth(&dir, &["migrate", "--database", "auth.db", "--down", "1", "--json"]);
    assert_eq!(json(&out)["to"], latest - 1);
    let conn = rusqlite::Connection::open(dir.join("auth.db")).unwrap();
    let version: i64 = conn.query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version as u64, latest - 1);
    let out = libauth(&dir, &["migrate", "--database", "auth.db", "--down", "99"]);
    assert_eq!(out.status.code(), Some(2));
    let out = libauth(&dir, &["migrate", "--database", "auth.db", "--to", "0"]);
    assert_eq!(out.status.code(), Some(0));
    let tables: i64 =
        conn.query_row("SELECT COUNT(*) FROM sqlite_master WHERE name = 'users'", [], |r| r.get(0)).unwrap();
    assert_eq!(tables, 0, "taken back to version 0");

    // A database written by a newer libauth is refused, and left as it is.
    conn.execute_batch("INSERT INTO schema_version (version) VALUES (999)").unwrap();
    let out = libauth(&dir, &["migrate", "--database", "auth.db"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("newer than this libauth"), "{}", stderr(&out));

    // The config's adapter names the database too.
    std::fs::write(dir.join("auth.json"), r#"{"adapter":{"type":"sqlite","path":"fromconfig.db"}}"#).unwrap();
    assert_eq!(libauth(&dir, &["migrate", "--config", "auth.json"]).status.code(), Some(0));
    assert!(dir.join("fromconfig.db").exists());
    std::fs::write(dir.join("mem.json"), r#"{"adapter":{"type":"memory"}}"#).unwrap();
    let out = libauth(&dir, &["migrate", "--config", "mem.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("nothing on disk"));
}

#[test]
fn migrate_on_postgres_in_its_own_schema_from_several_processes_at_once() {
    let dir = folder("pg");
    let schema = fresh_schema("migrate");
    let url = postgres_url();
    let base = ["migrate", "--database", url.as_str(), "--schema", schema.as_str()];
    let run = |extra: &[&str]| libauth(&dir, &[&base[..], extra].concat());

    let out = run(&["--status", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["version"], 0);
    let out = run(&["--dry-run"]);
    assert!(stdout(&out).contains(&format!("\"{schema}\".")), "the SQL names the schema");

    // Four processes migrate at once: the lock applies each step once.
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_libauth"))
                .args([&base[..], &["--json"]].concat())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let latest = serde_json::json!(libauth_core::store::postgres::MIGRATIONS.len());
    let mut applied = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report = json(&out);
        assert_eq!(report["to"], latest);
        applied += usize::from(report["from"] != report["to"]);
    }
    assert_eq!(applied, 1, "one process applied the steps; the others found them applied");
    let status = json(&run(&["--status", "--json"]));
    assert_eq!(status["version"], latest);
    assert!(status["migrations"].as_array().unwrap().iter().all(|m| m["applied"] == true));

    let out = run(&["--to", "1", "--json"]);
    assert_eq!(json(&out)["to"], 1);
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let rows = client.query_one("SELECT to_regclass($1) IS NULL", &[&format!("{schema}.authenticators")]).unwrap();
    assert!(rows.get::<_, bool>(0), "version 2's table is gone");
    drop_schema(&schema);

    let out = libauth(&dir, &["migrate", "--database", "postgres://postgres@127.0.0.1:1/test", "--status"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn doctor_passes_a_sound_config_and_names_each_problem() {
    let dir = folder("doctor");
    std::fs::write(
        dir.join("auth.json"),
        r#"{ "providers": [{ "builtin": "github", "clientId": "id", "clientSecret": "s" }],
             "adapter": { "type": "sqlite", "path": "auth.db" },
             "rateLimit": { "store": { "type": "sqlite", "path": "limits.db" } },
             "secondaryStorage": { "type": "redis", "url": "redis://127.0.0.1:6379" } }"#,
    )
    .unwrap();
    let env = [("AUTH_SECRET", SECRET), ("AUTH_URL", "https://app.example.com")];
    let out = with_env(&dir, &["doctor", "--json"], &env);
    let report = json(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    let message = |topic: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["topic"] == topic)
            .map(|f| (f["level"].as_str().unwrap().to_owned(), f["message"].as_str().unwrap().to_owned()))
            .unwrap_or_else(|| panic!("no finding on {topic}: {report}"))
    };
    assert!(message("providers.github").1.contains("https://app.example.com/auth/callback/github"));
    assert_eq!(message("secondaryStorage").0, "ok");
    assert!(message("database").1.contains("does not exist yet"));
    assert!(!dir.join("auth.db").exists(), "doctor creates no database");
    assert!(!dir.join("limits.db").exists(), "nor the rate limits' file");

    // Migrated: the version is reported.
    assert_eq!(libauth(&dir, &["migrate", "--config", "auth.json"]).status.code(), Some(0));
    let out = with_env(&dir, &["doctor", "--json"], &env);
    let report = json(&out);
    let db = report["findings"].as_array().unwrap().iter().find(|f| f["topic"] == "database").unwrap().clone();
    assert_eq!(db["level"], "ok", "{db}");

    // Each problem is named.
    // (environment, topic, words of the message)
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: [Case; 4] = [
        (
            &[("AUTH_SECRET", "changemechangemechangemechangeme12"), ("AUTH_URL", "https://a.example")],
            "secret",
            "changeme",
        ),
        (&[("AUTH_SECRET", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")], "url", "UntrustedHost"),
        (&[("AUTH_SECRET", SECRET), ("AUTH_URL", "http://app.example.com")], "cookies", "plain http"),
        (
            &[("AUTH_SECRET", "abababababababababababababababababab"), ("AUTH_URL", "https://a.example")],
            "secret",
            "bits",
        ),
    ];
    for (env, topic, words) in cases {
        let out = with_env(&dir, &["doctor", "--json"], env);
        assert_eq!(out.status.code(), Some(1), "{topic}: {}", stdout(&out));
        let report = json(&out);
        let found =
            report["findings"].as_array().unwrap().iter().any(|f| {
                f["level"] == "problem" && f["topic"] == topic && f["message"].as_str().unwrap().contains(words)
            });
        assert!(found, "{topic} / {words}: {report}");
    }
    let out = with_env(&dir, &["doctor", "--url", "https://other.example"], &env);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("links and callbacks would point at"));

    // A bad option, an unreachable database, Redis and SMTP server.
    std::fs::write(
        dir.join("typo.json"),
        r#"{ "providers": [{ "builtin": "github", "clientId": "x" }], "sesion": {} }"#,
    )
    .unwrap();
    let out = with_env(&dir, &["doctor", "--config", "typo.json"], &env);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("config sesion: unknown option"), "{}", stdout(&out));
    std::fs::write(
        dir.join("down.json"),
        r#"{ "providers": [{ "type": "email", "server": { "host": "127.0.0.1", "port": 1, "from": "a@example.com", "secure": false } }],
             "adapter": { "type": "postgres", "url": "postgres://postgres@127.0.0.1:1/test", "connectTimeout": 2 },
             "secondaryStorage": { "type": "redis", "url": "redis://127.0.0.1:1" } }"#,
    )
    .unwrap();
    let out = with_env(&dir, &["doctor", "--config", "down.json", "--json"], &env);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    for topic in ["database", "secondaryStorage", "providers.email"] {
        assert!(
            report["findings"].as_array().unwrap().iter().any(|f| f["topic"] == topic && f["level"] == "problem"),
            "{topic}: {report}"
        );
    }
    // A config that is not JSON is a usage error.
    std::fs::write(dir.join("broken.json"), "{").unwrap();
    assert_eq!(with_env(&dir, &["doctor", "--config", "broken.json"], &env).status.code(), Some(2));
}

#[test]
fn provider_add_names_the_callback_the_variables_and_the_console() {
    let dir = folder("provider");
    let out = libauth(&dir, &["provider", "add", "github", "--url", "https://app.example.com/api/auth", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["callbackUrl"], "https://app.example.com/api/auth/callback/github");
    assert_eq!(report["environment"], serde_json::json!(["AUTH_GITHUB_ID", "AUTH_GITHUB_SECRET"]));
    assert_eq!(report["console"], "https://github.com/settings/developers");
    let report = json(&libauth(&dir, &["provider", "add", "okta", "--json"]));
    assert!(report["environment"].as_array().unwrap().contains(&serde_json::json!("AUTH_OKTA_ISSUER")));
    let out = libauth(&dir, &["provider", "add", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("github"), "lists the known ones");
}

#[test]
fn provider_add_apple_mints_a_client_secret_apple_can_verify() {
    use josekit::jwk::alg::ec::{EcCurve, EcKeyPair};
    use josekit::jws::ES256;
    let dir = folder("apple");
    let pair = EcKeyPair::generate(EcCurve::P256).unwrap();
    std::fs::write(dir.join("AuthKey.p8"), pair.to_pem_private_key()).unwrap();
    let out = libauth(
        &dir,
        &[
            "provider",
            "add",
            "apple",
            "--p8",
            "AuthKey.p8",
            "--team-id",
            "TEAM123456",
            "--key-id",
            "KEY1234567",
            "--client-id",
            "com.example.web",
            "--expires-in",
            "30",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let token = report["clientSecret"]["AUTH_APPLE_SECRET"].as_str().unwrap();
    let verifier = ES256.verifier_from_pem(pair.to_pem_public_key()).unwrap();
    let (payload, header) = josekit::jwt::decode_with_verifier(token, &verifier).unwrap();
    assert_eq!(header.key_id(), Some("KEY1234567"));
    assert_eq!(payload.issuer(), Some("TEAM123456"));
    assert_eq!(payload.subject(), Some("com.example.web"));
    assert_eq!(payload.audience(), Some(vec!["https://appleid.apple.com"]));
    let iat = payload.claim("iat").unwrap().as_u64().expect("a whole number");
    let exp = payload.claim("exp").unwrap().as_u64().unwrap();
    assert_eq!(exp - iat, 30 * 86_400);

    let out = libauth(&dir, &["provider", "add", "apple", "--p8", "AuthKey.p8"]);
    assert_eq!(out.status.code(), Some(2), "the team, key and client ids go with --p8");
    let args =
        ["provider", "add", "apple", "--p8", "AuthKey.p8", "--team-id", "T", "--key-id", "K", "--client-id", "C"];
    assert_eq!(libauth(&dir, &[&args[..], &["--expires-in", "181"]].concat()).status.code(), Some(2));
    std::fs::write(dir.join("bad.p8"), "not a key").unwrap();
    let mut bad = args;
    bad[4] = "bad.p8";
    assert_eq!(libauth(&dir, &bad).status.code(), Some(1));
}

/// A Prisma-shaped Auth.js database in SQLite (`User`, `Account`,
/// `Session`, `VerificationToken`, `Authenticator`, camelCase columns,
/// dates as ms), with rows the import must refuse.
fn prisma_sqlite(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let now = libauth_core::time::now_millis() as i64;
    conn.execute_batch(&format!(
        r#"
        CREATE TABLE "User" (id TEXT PRIMARY KEY, name TEXT, email TEXT UNIQUE, emailVerified DATETIME, image TEXT);
        CREATE TABLE "Account" (userId TEXT, type TEXT, provider TEXT, providerAccountId TEXT, refresh_token TEXT,
            access_token TEXT, expires_at INTEGER, token_type TEXT, scope TEXT, id_token TEXT, session_state TEXT);
        CREATE TABLE "Session" (sessionToken TEXT PRIMARY KEY, userId TEXT, expires DATETIME);
        CREATE TABLE "VerificationToken" (identifier TEXT, token TEXT, expires DATETIME);
        CREATE TABLE "Authenticator" (credentialID TEXT PRIMARY KEY, userId TEXT, providerAccountId TEXT,
            credentialPublicKey TEXT, counter INTEGER, credentialDeviceType TEXT, credentialBackedUp BOOLEAN, transports TEXT);
        INSERT INTO "User" VALUES ('u1', 'Ada', 'ada@example.com', {now}, NULL);
        INSERT INTO "User" VALUES ('u2', 'Bob', 'bob@example.com', NULL, NULL);
        INSERT INTO "User" VALUES ('u3', 'Eve', 'taken@example.com', {now}, NULL);
        INSERT INTO "Account" VALUES ('u1', 'oidc', 'google', 'g-1', NULL, 'at', 1900000000, 'bearer', 'openid', NULL, NULL);
        INSERT INTO "Account" VALUES ('ghost', 'oauth', 'github', 'gh-9', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        INSERT INTO "Session" VALUES ('live-token-1', 'u1', {live});
        INSERT INTO "Session" VALUES ('old-token', 'u1', {old});
        INSERT INTO "Session" VALUES ('eve-token', 'u3', {live});
        INSERT INTO "VerificationToken" VALUES ('bob@example.com', 'hashed-token', '{live_iso}');
        INSERT INTO "Authenticator" VALUES ('cred-1', 'u1', 'cred-1', 'pQECAyYgASFYIA', 3, 'multiDevice', 1, 'internal,hybrid');
        "#,
        live = now + 86_400_000,
        old = now - 1000,
        live_iso = libauth_core::store::date::to_iso(now + 3_600_000),
    ))
    .unwrap();
}

#[test]
fn import_authjs_from_prisma_sqlite_maps_refuses_and_is_idempotent() {
    let dir = folder("import");
    prisma_sqlite(&dir.join("authjs.db"));
    // libauth's database already has someone else with Eve's address.
    let target = dir.join("libauth.db");
    let adapter = libauth_core::store::from_config(
        &serde_json::json!({ "type": "sqlite", "path": target.display().to_string() }),
        std::sync::Arc::new(libauth_core::NoHooks),
    )
    .unwrap();
    adapter
        .create_user(&libauth_core::store::NewUser {
            id: Some("other".into()),
            email: Some("taken@example.com".into()),
            ..Default::default()
        })
        .unwrap();

    let args = ["import", "authjs", "--from", "sqlite:authjs.db", "--to", "sqlite:libauth.db", "--json"];
    // A dry run into a file that does not exist creates nothing.
    let out = libauth(&dir, &["import", "authjs", "--from", "authjs.db", "--to", "fresh.db", "--dry-run", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["counts"]["users"]["written"], 3);
    assert!(!dir.join("fresh.db").exists());

    let out = libauth(&dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let counts = &report["counts"];
    assert_eq!(counts["users"]["written"], 2, "{report}");
    assert_eq!(counts["users"]["skipped"], 1, "Eve's address belongs to another user: not merged");
    assert_eq!(counts["accounts"]["written"], 1);
    assert_eq!(counts["accounts"]["skipped"], 1, "the ghost's account has no user");
    assert_eq!(counts["sessions"]["written"], 1);
    assert_eq!(counts["sessions"]["skipped"], 2, "an expired one, and Eve's");
    assert_eq!(counts["verification tokens"]["written"], 1);
    assert_eq!(counts["passkeys"]["written"], 1);
    let skipped = report["skipped"].as_array().unwrap();
    assert!(skipped.iter().any(|s| s.as_str().unwrap().contains("not merged")));
    assert!(!stdout(&out).contains("live-token-1"), "session tokens are never printed");

    // What libauth now has: the session under the token's hash, the user
    // with its proof of address, the account, the passkey.
    let hashed = libauth_core::session::stored_session_token("live-token-1");
    let (session, user) = adapter.get_session_and_user(&hashed).unwrap().expect("the live session");
    assert_eq!(user.id, "u1");
    assert!(user.email_verified.is_some());
    assert!(session.expires > libauth_core::time::now_millis() as i64);
    assert!(adapter.get_session("live-token-1").unwrap().is_none(), "never stored in the clear");
    assert_eq!(adapter.get_user_by_account("google", "g-1").unwrap().unwrap().id, "u1");
    assert_eq!(adapter.get_user("u2").unwrap().unwrap().email_verified, None, "an unproven address stays unproven");
    let passkey = adapter.get_authenticator("cred-1").unwrap().unwrap();
    assert_eq!((passkey.counter, passkey.credential_backed_up), (3, true));
    assert_eq!(adapter.get_user("other").unwrap().unwrap().email.as_deref(), Some("taken@example.com"));

    // A second run writes nothing.
    let again = json(&libauth(&dir, &args));
    for kind in ["users", "accounts", "sessions", "passkeys"] {
        assert_eq!(again["counts"][kind]["written"], 0, "{kind}: {again}");
    }
    assert_eq!(again["counts"]["users"]["present"], 2);
    assert_eq!(again["counts"]["sessions"]["present"], 1);

    // Not an Auth.js database: said so.
    std::fs::write(dir.join("empty.db"), b"").unwrap();
    let out = libauth(&dir, &["import", "authjs", "--from", "empty.db", "--to", "x.db"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no users table"), "{}", stderr(&out));
}

#[test]
fn import_authjs_into_postgres() {
    let dir = folder("import-pg");
    prisma_sqlite(&dir.join("authjs.db"));
    let schema = fresh_schema("import");
    let url = postgres_url();
    let args =
        ["import", "authjs", "--from", "authjs.db", "--to", url.as_str(), "--to-schema", schema.as_str(), "--json"];
    let out = libauth(&dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["counts"]["users"]["written"], 3, "{report}");
    assert_eq!(report["counts"]["sessions"]["written"], 2);
    let again = json(&libauth(&dir, &args));
    assert_eq!(again["counts"]["sessions"]["present"], 2);
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let hashed = libauth_core::session::stored_session_token("live-token-1");
    let row = client
        .query_one(&format!("SELECT user_id FROM {schema}.sessions WHERE session_token = $1"), &[&hashed])
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "u1");
    drop_schema(&schema);
}

#[test]
fn doctor_reads_a_postgres_databases_version_without_migrating_it() {
    let dir = folder("doctor-pg");
    let schema = fresh_schema("doctor");
    let url = postgres_url();
    let config = serde_json::json!({
        "providers": [{ "builtin": "github", "clientId": "id", "clientSecret": "s" }],
        "adapter": { "type": "postgres", "url": url, "schema": schema },
    });
    std::fs::write(dir.join("auth.json"), config.to_string()).unwrap();
    let env = [("AUTH_SECRET", SECRET), ("AUTH_URL", "https://app.example.com")];
    let finding = |report: &serde_json::Value| {
        report["findings"].as_array().unwrap().iter().find(|f| f["topic"] == "database").cloned().unwrap()
    };
    // A schema not migrated yet: a note, and doctor leaves it so.
    let report = json(&with_env(&dir, &["doctor", "--json"], &env));
    let db = finding(&report);
    assert_eq!(db["level"], "note", "{report}");
    assert!(db["message"].as_str().unwrap().contains("schema version 0 of"), "{db}");
    let status = json(&libauth(&dir, &["migrate", "--config", "auth.json", "--status", "--json"]));
    assert_eq!(status["version"], 0, "doctor migrated nothing");
    // Migrated: ok.
    assert_eq!(libauth(&dir, &["migrate", "--config", "auth.json"]).status.code(), Some(0));
    let report = json(&with_env(&dir, &["doctor", "--json"], &env));
    assert_eq!(finding(&report)["level"], "ok", "{report}");
    assert_eq!(report["ok"], true);
    drop_schema(&schema);
}
