//! PostgreSQL adapter: the `postgres` crate (synchronous client) with a
//! the engine's connection pool (`crate::pool`, which says why not r2d2).
//!
//! Tables live in one schema (`public` unless configured), named in every
//! statement rather than through `search_path`, so a pooled connection
//! never depends on per-session state. The schema is created or migrated on
//! first use (or by [`migrate`]), inside a transaction that holds a
//! PostgreSQL advisory lock, so several processes starting at once take
//! turns instead of racing to create the same tables.
//!
//! Outages: a connect that fails (refused, or no answer within
//! `connect_timeout`, 5 s by default) fails its call with
//! [`AdapterError::Unavailable`] at once, and every call waiting for a
//! connection with it. It also opens the pool's circuit breaker:
//! every call then fails at once, while one caller at a time probes the
//! server (at least every 500 ms, with a 500 ms timeout), so an outage
//! costs a request microseconds, not a connect timeout, and the first probe
//! that gets through closes it. An idle connection is tested before it is
//! handed out and replaced if the server dropped it, so a restart breaks
//! no call after it. A call that waits `connect_timeout` for a connection
//! because all `pool_size` are busy gets [`AdapterError::Overloaded`]
//! (the engine answers 503 with `Retry-After`); that is load, and never
//! opens the breaker.
//!
//! Processes: connections belong to the process that opened them. A child
//! after `fork()` (a pre-fork server's workers) opens its own on first use
//! and never uses, nor closes, the parent's.
//!
//! TLS (rustls with the `ring` provider), chosen by libpq's URL options,
//! with libpq's meaning:
//!
//! - No `sslmode`, or `sslmode=disable`: plain TCP, never TLS. (libpq's
//!   default is `prefer`; here the default stays plain, so say `prefer` to
//!   get it.)
//! - `sslmode=allow`: plain TCP first; if the server refuses that startup
//!   (an error response, e.g. `pg_hba.conf` has only `hostssl` lines for
//!   us), a second connection with TLS, without certificate verification.
//! - `sslmode=prefer`: TLS first, without certificate verification (as
//!   `require` without `sslrootcert`). If the server answers the SSL
//!   request with "no TLS", the same connection goes on in plain text; if
//!   the TLS attempt fails (the handshake fails at any point, or the
//!   server refuses the startup over TLS, e.g. a `hostnossl`-only
//!   `pg_hba.conf`), a second connection in plain text, as libpq does
//!   ("first try an SSL connection; if that fails, try a non-SSL
//!   connection"). Like libpq's, it protects against a passive eavesdropper
//!   only: anyone on the path can make it fall back to plain text.
//!   `allow` and `prefer` ignore `sslrootcert` (libpq would verify with
//!   it, then fall back to plain text on a failed check).
//! - `sslmode=require`: TLS without certificate verification, as libpq's
//!   `require` (encrypted, but open to an active man in the middle). With
//!   `sslrootcert` it verifies like `verify-ca`, as libpq does.
//! - `sslmode=verify-ca`: TLS, and the server's certificate chain must lead
//!   to a CA of `sslrootcert` (its host name is not checked).
//! - `sslmode=verify-full`: as `verify-ca`, and the certificate must name
//!   the host connected to (a DNS name, or an IP address in its SANs).
//!
//! `sslrootcert=/path/ca.pem` is a PEM file of one or more CA certificates,
//! read when the adapter is built; `verify-ca` and `verify-full` need it
//! (there is no default file and no system store). In the key-value form:
//! `host=db sslmode=verify-full sslrootcert=/etc/ssl/db-ca.pem`. `require`,
//! `verify-ca` and `verify-full` never fall back to plain TCP: if the
//! server refuses TLS or the handshake or verification fails, the call
//! fails with [`AdapterError::Unavailable`] naming the TLS handshake. An
//! unknown `sslmode` value, or an unreadable `sslrootcert`, fails at config
//! time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::migrations::{self, Migrated, Migration};
use crate::pool::{Check, CheckoutError, Limits, Pool, Pooled};

mod counters;

/// A pooled PostgreSQL connection.
type PooledClient<'a> = Pooled<'a, Connector>;
use postgres::config::SslMode;
use postgres::{Client, GenericClient, Row};

/// How long a probe of an unreachable server waits for a connection.
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{
    constraint, new_user_id, AccountStore, AdapterAccount, AdapterError, AdapterSession, AdapterUser, Authenticator,
    Ensured, LeaseStore, ListedSession, NewUser, PasskeyStore, Sealing, SessionDetails, SessionStore, UserStore,
    UserUpdate, VerificationStore, VerificationToken,
};

mod tls;

pub use super::postgres_options::{
    is_valid_schema_name, PostgresOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_POOL_SIZE, DEFAULT_SCHEMA,
};

/// The schema, as numbered migrations (see [`super::migrations`]), with
/// `{schema}` standing for the quoted schema name; the database records
/// the versions it applied in `schema_version`. Never edit a shipped one:
/// append. Constraint names match [`super::constraint`].
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "the Auth.js model: users, accounts, sessions, verification tokens",
        up: "CREATE TABLE {schema}.users (
        id text NOT NULL CONSTRAINT users_pkey PRIMARY KEY,
        name text,
        email text CONSTRAINT users_email_key UNIQUE,
        email_verified timestamptz,
        image text
    );
    CREATE TABLE {schema}.accounts (
        user_id text NOT NULL CONSTRAINT accounts_user_fkey REFERENCES {schema}.users(id) ON DELETE CASCADE,
        type text NOT NULL,
        provider text NOT NULL,
        provider_account_id text NOT NULL,
        access_token text,
        refresh_token text,
        expires_at bigint,
        token_type text,
        scope text,
        id_token text,
        session_state text,
        extra jsonb NOT NULL DEFAULT '{}'::jsonb,
        CONSTRAINT accounts_provider_account_key PRIMARY KEY (provider, provider_account_id)
    );
    CREATE INDEX accounts_user_id_idx ON {schema}.accounts (user_id);
    CREATE TABLE {schema}.sessions (
        session_token text NOT NULL CONSTRAINT sessions_pkey PRIMARY KEY,
        user_id text NOT NULL CONSTRAINT sessions_user_fkey REFERENCES {schema}.users(id) ON DELETE CASCADE,
        expires timestamptz NOT NULL
    );
    CREATE INDEX sessions_user_id_idx ON {schema}.sessions (user_id);
    CREATE TABLE {schema}.verification_tokens (
        identifier text NOT NULL,
        token text NOT NULL,
        expires timestamptz NOT NULL,
        CONSTRAINT verification_tokens_pkey PRIMARY KEY (identifier, token)
    );",
        down: "DROP TABLE {schema}.verification_tokens; DROP TABLE {schema}.sessions;
        DROP TABLE {schema}.accounts; DROP TABLE {schema}.users;",
    },
    // Passkeys (Auth.js's authenticators, plus a name and when each was
    // created and last used). Dates are timestamptz, as the other tables'.
    Migration {
        version: 2,
        name: "passkeys",
        up: "CREATE TABLE {schema}.authenticators (
        credential_id text NOT NULL CONSTRAINT authenticators_pkey PRIMARY KEY,
        user_id text NOT NULL CONSTRAINT authenticators_user_fkey REFERENCES {schema}.users(id) ON DELETE CASCADE,
        provider_account_id text NOT NULL,
        credential_public_key text NOT NULL,
        counter bigint NOT NULL,
        credential_device_type text NOT NULL,
        credential_backed_up boolean NOT NULL,
        transports text,
        name text,
        created_at timestamptz,
        last_used_at timestamptz
    );
    CREATE INDEX authenticators_user_id_idx ON {schema}.authenticators (user_id);",
        down: "DROP TABLE {schema}.authenticators;",
    },
    // Rate-limit counts and named leases. UNLOGGED: no write-ahead log, so
    // a count costs no WAL flush at commit (about 5 ms a statement on a
    // busy disk, against 0.2 ms). The price is what counts and leases can
    // afford: the tables are emptied after a crash and not copied to
    // replicas. `IF NOT EXISTS`: the rate-limit store made `rate_limits`
    // itself before it was part of the schema.
    Migration {
        version: 3,
        name: "rate-limit counters and leases",
        up: "CREATE UNLOGGED TABLE IF NOT EXISTS {schema}.rate_limits (
            key text NOT NULL,
            window_ms bigint NOT NULL,
            number bigint NOT NULL,
            count bigint NOT NULL,
            expires bigint NOT NULL,
            PRIMARY KEY (key, window_ms, number)
        );
        CREATE INDEX IF NOT EXISTS rate_limits_expires_idx ON {schema}.rate_limits (expires);
        CREATE UNLOGGED TABLE {schema}.leases (
            name text NOT NULL PRIMARY KEY,
            expires bigint NOT NULL
        );",
        down: "DROP TABLE {schema}.leases; DROP TABLE {schema}.rate_limits;",
    },
    // The user's language (a BCP 47 tag: a provider's `locale` claim, or
    // what the user chose), for the pages' `user` resolution step. Users
    // already stored get none; adding a nullable column without a default
    // rewrites no rows.
    Migration {
        version: 4,
        name: "users' locale",
        up: "ALTER TABLE {schema}.users ADD COLUMN locale text;",
        down: "ALTER TABLE {schema}.users DROP COLUMN locale;",
    },
    // Where each session was made, for its owner's list of sessions: when,
    // the browser's User-Agent and the client's network (the address cut
    // to /24 or /48). Sessions already stored get none; nullable columns
    // without a default rewrite no rows.
    Migration {
        version: 5,
        name: "sessions' details",
        up: "ALTER TABLE {schema}.sessions ADD COLUMN created_at timestamptz, ADD COLUMN user_agent text,
        ADD COLUMN ip text;",
        down: "ALTER TABLE {schema}.sessions DROP COLUMN ip, DROP COLUMN user_agent, DROP COLUMN created_at;",
    },
    // Sign-outs everywhere: every session a user signed in to before
    // `ended_before` (unix ms) is over. JWT sessions are in no table, so
    // this is how "end all" reaches them. No foreign key: a credentials
    // user has no row in `users`. Kept until `keep_until` (unix ms), when
    // no such session can be unexpired any more.
    Migration {
        version: 6,
        name: "sign-outs everywhere",
        up: "CREATE TABLE {schema}.sign_outs (
        user_id text NOT NULL PRIMARY KEY,
        ended_before bigint NOT NULL,
        keep_until bigint NOT NULL
    );",
        down: "DROP TABLE {schema}.sign_outs;",
    },
];

/// Parse the URL and apply our timeout (the URL's `connect_timeout` wins),
/// with libpq's TLS options taken out. Fails for a URL that does not parse,
/// an unknown `sslmode` or a CA file that cannot be used.
fn client_config(options: &PostgresOptions) -> Result<(postgres::Config, tls::Tls), String> {
    let (rest, tls) = tls::split_options(&options.url)?;
    // The parse error names the bad option, never the URL or its password.
    let mut config: postgres::Config = rest.parse().map_err(|e: postgres::Error| e.to_string())?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(options.connect_timeout);
    }
    Ok((config, tls))
}

/// Bring libauth's schema in the database `options` names to `target`
/// (`None`: the newest), up or down, and say from which version to which.
/// Safe to run while applications are using the database and from several
/// processes at once (one advisory lock); what the adapter does on first
/// use anyway (up to the newest), exposed for a `migrate` command that runs
/// it before deployment.
pub fn migrate(options: &PostgresOptions, target: Option<u32>) -> Result<Migrated, AdapterError> {
    let mut client = connect_once(options)?;
    migrate_client(&mut client, &options.schema, target)
}

/// The schema version of the database `options` names (0 without
/// libauth's tables), and the steps that would bring it to `target`,
/// without running them.
pub fn plan(options: &PostgresOptions, target: Option<u32>) -> Result<(u32, Vec<migrations::Step>), AdapterError> {
    let mut client = connect_once(options)?;
    let quoted = quote_ident(&options.schema);
    let exists: bool = client
        .query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{quoted}.schema_version")])
        .map_err(|e| map_error("migrate", e))?
        .get(0);
    let current = match exists {
        true => current_version(&mut client, &quoted)?,
        false => 0,
    };
    let steps =
        migrations::plan(MIGRATIONS, current, target).map_err(|e| AdapterError::other("migrate", e.to_string()))?;
    Ok((current, steps))
}

/// A step's SQL for the schema `schema` (a valid identifier).
pub fn step_sql(step: &migrations::Step, schema: &str) -> String {
    step.sql().replace("{schema}", &quote_ident(schema))
}

fn connect_once(options: &PostgresOptions) -> Result<Client, AdapterError> {
    let op = "migrate";
    if !is_valid_schema_name(&options.schema) {
        return Err(AdapterError::other(op, "invalid schema name"));
    }
    let connector = Connector::new(options).map_err(|e| AdapterError::other(op, e))?;
    connector.connect(false).map_err(|e| map_error(op, e))
}

fn current_version(client: &mut impl GenericClient, quoted: &str) -> Result<u32, AdapterError> {
    let version: i32 = client
        .query_one(&format!("SELECT COALESCE(MAX(version), 0) FROM {quoted}.schema_version"), &[])
        .map_err(|e| map_error("migrate", e))?
        .get(0);
    Ok(u32::try_from(version).unwrap_or(0))
}

/// The advisory lock key of a schema's migrations: a stable 64-bit hash, so
/// migrations of different schemas don't wait for each other.
fn migration_lock_key(schema: &str) -> i64 {
    let digest = Sha256::digest(format!("libauth:migrate:{schema}").as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(bytes)
}

fn migrate_client(client: &mut Client, schema: &str, target: Option<u32>) -> Result<Migrated, AdapterError> {
    let op = "migrate";
    let err = |e| map_error(op, e);
    let quoted = quote_ident(schema);
    let mut tx = client.transaction().map_err(err)?;
    // Held until commit or rollback: a second process blocks here and then
    // finds the schema up to date.
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&migration_lock_key(schema)]).map_err(err)?;
    // `CREATE SCHEMA IF NOT EXISTS` needs the CREATE privilege on the
    // database even when the schema exists; check first so a role that may
    // only use an existing schema can still start.
    let exists = tx.query_opt("SELECT 1 FROM pg_namespace WHERE nspname = $1", &[&schema]).map_err(err)?.is_some();
    if !exists {
        tx.batch_execute(&format!("CREATE SCHEMA {quoted}")).map_err(err)?;
    }
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS {quoted}.schema_version (
            version integer NOT NULL PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )"
    ))
    .map_err(err)?;
    let from = current_version(&mut tx, &quoted)?;
    let steps = migrations::plan(MIGRATIONS, from, target).map_err(|e| AdapterError::other(op, e.to_string()))?;
    let mut to = from;
    for step in &steps {
        tx.batch_execute(&step.sql().replace("{schema}", &quoted)).map_err(err)?;
        let version = step.migration.version as i32;
        let record = match step.direction {
            migrations::Direction::Up => format!("INSERT INTO {quoted}.schema_version (version) VALUES ($1)"),
            migrations::Direction::Down => format!("DELETE FROM {quoted}.schema_version WHERE version = $1"),
        };
        tx.execute(&record, &[&version]).map_err(err)?;
        to = step.version_after();
    }
    tx.commit().map_err(err)?;
    Ok(Migrated { from, to })
}

/// `"name"`. Schema names are validated by [`is_valid_schema_name`], so
/// this never has a quote to escape; it doubles any anyway.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Map a driver error. Database errors are described by their SQLSTATE and
/// primary message only: their DETAIL repeats the offending key values
/// (a session token, an email), which must not reach a log.
fn map_error(operation: &'static str, e: postgres::Error) -> AdapterError {
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        return match &code[..2] {
            "23" => AdapterError::constraint(operation, db.constraint().unwrap_or(code)),
            // connection exception, insufficient resources (too many
            // connections), operator intervention (shutdown, restart).
            "08" | "53" | "57" => AdapterError::unavailable(operation, format!("{code} {}", db.message())),
            // data exception: the message may quote the value.
            "22" => AdapterError::other(operation, format!("invalid data (SQLSTATE {code})")),
            _ => AdapterError::other(operation, format!("{code} {}", db.message())),
        };
    }
    let is_io = std::error::Error::source(&e).is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some());
    let text = with_causes(&e);
    let lost = [
        "error communicating with the server",
        "error connecting to server",
        "timeout waiting for server",
        // The server refused TLS, or the handshake or the certificate
        // check failed: never retried without TLS.
        "error performing TLS handshake",
    ];
    if e.is_closed() || is_io || lost.iter().any(|p| text.starts_with(p)) {
        AdapterError::unavailable(operation, text)
    } else {
        AdapterError::other(operation, text)
    }
}

/// An error's text followed by its causes' (`a: b: c`), each only when
/// its display does not already end with it. Not for errors from the
/// server (their causes print DETAIL).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.ends_with(&more) {
            text = format!("{text}: {more}");
        }
        cause = c.source();
    }
    text
}

fn to_timestamp(operation: &'static str, unix_ms: i64) -> Result<OffsetDateTime, AdapterError> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(unix_ms) * 1_000_000)
        .map_err(|_| AdapterError::other(operation, "date out of range"))
}

fn to_unix_ms(t: OffsetDateTime) -> i64 {
    i64::try_from(t.unix_timestamp_nanos().div_euclid(1_000_000)).unwrap_or(i64::MAX)
}

fn user_from_row(row: &Row, first: usize) -> Result<AdapterUser, postgres::Error> {
    Ok(AdapterUser {
        id: row.try_get(first)?,
        name: row.try_get(first + 1)?,
        email: row.try_get(first + 2)?,
        email_verified: row.try_get::<_, Option<OffsetDateTime>>(first + 3)?.map(to_unix_ms),
        image: row.try_get(first + 4)?,
        locale: row.try_get(first + 5)?,
    })
}

/// The parameters of the user inserts, in `user_columns`' order, with the
/// verification date as a timestamp.
fn user_params<'a>(
    user: &'a AdapterUser,
    verified: &'a Option<OffsetDateTime>,
) -> [&'a (dyn postgres::types::ToSql + Sync); 6] {
    [&user.id, &user.name, &user.email, verified, &user.image, &user.locale]
}

fn session_from_row(row: &Row) -> Result<AdapterSession, postgres::Error> {
    Ok(AdapterSession {
        session_token: row.try_get(0)?,
        user_id: row.try_get(1)?,
        expires: to_unix_ms(row.try_get(2)?),
    })
}

fn authenticator_from_row(operation: &'static str, row: &Row) -> Result<Authenticator, AdapterError> {
    let read = || -> Result<(Authenticator, i64), postgres::Error> {
        let date = |i: usize| row.try_get::<_, Option<OffsetDateTime>>(i).map(|t| t.map(to_unix_ms));
        Ok((
            Authenticator {
                credential_id: row.try_get(0)?,
                user_id: row.try_get(1)?,
                provider_account_id: row.try_get(2)?,
                credential_public_key: row.try_get(3)?,
                counter: 0,
                credential_device_type: row.try_get(5)?,
                credential_backed_up: row.try_get(6)?,
                transports: row.try_get(7)?,
                name: row.try_get(8)?,
                created_at: date(9)?,
                last_used_at: date(10)?,
            },
            row.try_get(4)?,
        ))
    };
    let (mut authenticator, counter) = read().map_err(|e| map_error(operation, e))?;
    // A bigint column: a value that is no u32 was not written by this
    // adapter, and is refused rather than truncated.
    authenticator.counter =
        u32::try_from(counter).map_err(|_| AdapterError::other(operation, "stored signature counter out of range"))?;
    Ok(authenticator)
}

/// Every statement, with the schema filled in once at construction.
struct Statements {
    insert_user: String,
    /// `insert_user` that does nothing on a conflict of the id, of the
    /// email, or of either.
    insert_user_unless_id: String,
    insert_user_unless_email: String,
    insert_user_unless_any: String,
    user_by_id: String,
    user_by_email: String,
    user_by_account: String,
    update_user: String,
    delete_user: String,
    insert_account: String,
    insert_account_unless_linked: String,
    delete_account: String,
    account_by_user: String,
    update_account: String,
    insert_session: String,
    session_and_user: String,
    update_session: String,
    delete_session: String,
    insert_verification_token: String,
    use_verification_token: String,
    delete_expired_sessions: String,
    delete_expired_verification_tokens: String,
    delete_user_sessions: String,
    list_user_sessions: String,
    delete_expired_sign_outs: String,
    sign_out_before: String,
    signed_out_before: String,
    take_lease: String,
    release_lease: String,
    // The counters' statements (see `counters`).
    consume: String,
    read_count: String,
    refund: String,
    purge_counts: String,
    count_rows: String,
    insert_authenticator: String,
    authenticator_by_id: String,
    authenticators_by_user: String,
    update_authenticator_counter: String,
    rename_authenticator: String,
    delete_authenticator: String,
}

impl Statements {
    fn new(schema: &str) -> Statements {
        let s = quote_ident(schema);
        let user_columns = "id, name, email, email_verified, image, locale";
        let authenticator_columns = "credential_id, user_id, provider_account_id, credential_public_key, counter,
            credential_device_type, credential_backed_up, transports, name, created_at, last_used_at";
        let insert_user = format!("INSERT INTO {s}.users ({user_columns}) VALUES ($1, $2, $3, $4, $5, $6)");
        let insert_account = format!(
            "INSERT INTO {s}.accounts (provider, provider_account_id, type, access_token, refresh_token,
                expires_at, token_type, scope, id_token, session_state, extra, user_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        );
        Statements {
            insert_user_unless_id: format!("{insert_user} ON CONFLICT (id) DO NOTHING"),
            insert_user_unless_email: format!("{insert_user} ON CONFLICT (email) DO NOTHING"),
            insert_user_unless_any: format!("{insert_user} ON CONFLICT DO NOTHING"),
            insert_user,
            user_by_id: format!("SELECT {user_columns} FROM {s}.users WHERE id = $1"),
            user_by_email: format!("SELECT {user_columns} FROM {s}.users WHERE email = $1"),
            user_by_account: format!(
                "SELECT u.id, u.name, u.email, u.email_verified, u.image, u.locale
                 FROM {s}.accounts a JOIN {s}.users u ON u.id = a.user_id
                 WHERE a.provider = $1 AND a.provider_account_id = $2"
            ),
            // Each field has a "change it" flag, so `null` (clear) and
            // "absent" (keep) stay distinct in one statement.
            update_user: format!(
                "UPDATE {s}.users SET
                    name = CASE WHEN $2::boolean THEN $3::text ELSE name END,
                    email = CASE WHEN $4::boolean THEN $5::text ELSE email END,
                    email_verified = CASE WHEN $6::boolean THEN $7::timestamptz ELSE email_verified END,
                    image = CASE WHEN $8::boolean THEN $9::text ELSE image END,
                    locale = CASE WHEN $10::boolean THEN $11::text ELSE locale END
                 WHERE id = $1 RETURNING {user_columns}"
            ),
            delete_user: format!("DELETE FROM {s}.users WHERE id = $1"),
            // The account writes take the parameters of `account_params`.
            insert_account_unless_linked: format!(
                "{insert_account} ON CONFLICT (provider, provider_account_id) DO NOTHING"
            ),
            insert_account,
            delete_account: format!("DELETE FROM {s}.accounts WHERE provider = $1 AND provider_account_id = $2"),
            account_by_user: format!(
                "SELECT type, provider_account_id, access_token, refresh_token, expires_at, token_type, scope,
                    id_token, session_state, extra
                 FROM {s}.accounts WHERE user_id = $1 AND provider = $2
                 ORDER BY provider_account_id LIMIT 1"
            ),
            update_account: format!(
                "UPDATE {s}.accounts SET type = $3, access_token = $4, refresh_token = $5, expires_at = $6,
                    token_type = $7, scope = $8, id_token = $9, session_state = $10, extra = $11
                 WHERE provider = $1 AND provider_account_id = $2 AND user_id = $12"
            ),
            insert_session: format!(
                "INSERT INTO {s}.sessions (session_token, user_id, expires, created_at, user_agent, ip)
                 VALUES ($1, $2, $3, $4, $5, $6)"
            ),
            list_user_sessions: format!(
                "SELECT session_token, expires, created_at, user_agent, ip FROM {s}.sessions WHERE user_id = $1"
            ),
            session_and_user: format!(
                "SELECT s.session_token, s.user_id, s.expires, u.id, u.name, u.email, u.email_verified, u.image,
                    u.locale
                 FROM {s}.sessions s JOIN {s}.users u ON u.id = s.user_id
                 WHERE s.session_token = $1"
            ),
            update_session: format!(
                "UPDATE {s}.sessions SET expires = $2 WHERE session_token = $1
                 RETURNING session_token, user_id, expires"
            ),
            delete_session: format!(
                "DELETE FROM {s}.sessions WHERE session_token = $1 RETURNING session_token, user_id, expires"
            ),
            insert_verification_token: format!(
                "INSERT INTO {s}.verification_tokens (identifier, token, expires) VALUES ($1, $2, $3)"
            ),
            // One statement: of concurrent calls, the row lock lets exactly
            // one delete (and return) the token; the others find nothing.
            use_verification_token: format!(
                "DELETE FROM {s}.verification_tokens WHERE identifier = $1 AND token = $2
                 RETURNING identifier, token, expires"
            ),
            delete_expired_sessions: format!("DELETE FROM {s}.sessions WHERE expires < $1"),
            delete_expired_verification_tokens: format!("DELETE FROM {s}.verification_tokens WHERE expires < $1"),
            delete_user_sessions: format!("DELETE FROM {s}.sessions WHERE user_id = $1"),
            delete_expired_sign_outs: format!("DELETE FROM {s}.sign_outs WHERE keep_until < $1"),
            // One statement: two processes ending the same user's sessions
            // keep the later time, whichever writes last.
            sign_out_before: format!(
                "INSERT INTO {s}.sign_outs (user_id, ended_before, keep_until) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id) DO UPDATE SET
                     ended_before = greatest({s}.sign_outs.ended_before, excluded.ended_before),
                     keep_until = greatest({s}.sign_outs.keep_until, excluded.keep_until)"
            ),
            signed_out_before: format!("SELECT ended_before FROM {s}.sign_outs WHERE user_id = $1"),
            take_lease: format!(
                "INSERT INTO {s}.leases AS l (name, expires) VALUES ($1, $2)
                 ON CONFLICT (name) DO UPDATE SET expires = excluded.expires WHERE l.expires <= $3"
            ),
            release_lease: format!("DELETE FROM {s}.leases WHERE name = $1"),
            consume: format!(
                "INSERT INTO {s}.rate_limits AS r (key, window_ms, number, count, expires)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (key, window_ms, number) DO UPDATE SET count = r.count + excluded.count
                 RETURNING count"
            ),
            read_count: format!("SELECT count FROM {s}.rate_limits WHERE key = $1 AND window_ms = $2 AND number = $3"),
            refund: format!(
                "UPDATE {s}.rate_limits SET count = GREATEST(count - $4, 0)
                 WHERE key = $1 AND window_ms = $2 AND number = $3"
            ),
            purge_counts: format!("DELETE FROM {s}.rate_limits WHERE expires < $1"),
            count_rows: format!("SELECT COUNT(*) FROM {s}.rate_limits"),
            insert_authenticator: format!(
                "INSERT INTO {s}.authenticators ({authenticator_columns})
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
            ),
            authenticator_by_id: format!(
                "SELECT {authenticator_columns} FROM {s}.authenticators WHERE credential_id = $1"
            ),
            // Oldest first; rows without `created_at` (written by Auth.js)
            // before the others, ties by credential id compared bytewise
            // (`C`), as the other adapters order them.
            authenticators_by_user: format!(
                "SELECT {authenticator_columns} FROM {s}.authenticators WHERE user_id = $1
                 ORDER BY created_at NULLS FIRST, credential_id COLLATE \"C\""
            ),
            update_authenticator_counter: format!(
                "UPDATE {s}.authenticators SET counter = $2, last_used_at = $3 WHERE credential_id = $1
                 RETURNING {authenticator_columns}"
            ),
            rename_authenticator: format!(
                "UPDATE {s}.authenticators SET name = $2 WHERE credential_id = $1 RETURNING {authenticator_columns}"
            ),
            delete_authenticator: format!(
                "DELETE FROM {s}.authenticators WHERE credential_id = $1 RETURNING {authenticator_columns}"
            ),
        }
    }
}

/// A failed connect as the pool reports it: a server error by its code and
/// message only (its DETAIL may quote values), anything else with its
/// causes (a `postgres::Error` prints only its kind, "error performing TLS
/// handshake", not why).
fn connect_error_text(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} {}", db.code().code(), db.message()),
        None => with_causes(e),
    }
}

/// When a failed first attempt is retried with the other transport, as
/// libpq does for `prefer` and `allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Retry {
    Never,
    /// `prefer`: the TLS attempt failed (the handshake, or the server
    /// refused the startup over TLS): try plain TCP. A server that answers
    /// "no TLS" to the SSL request is not a failure: the same connection
    /// goes on in plain text.
    PlainAfterTls,
    /// `allow`: the server refused the plain startup: try TLS.
    TlsAfterPlain,
}

impl Retry {
    fn applies_to(self, e: &postgres::Error) -> bool {
        let refused_by_server = e.as_db_error().is_some();
        match self {
            Retry::Never => false,
            Retry::PlainAfterTls => refused_by_server || e.to_string().starts_with("error performing TLS handshake"),
            Retry::TlsAfterPlain => refused_by_server,
        }
    }
}

/// How connections are made: the URL's settings for the first attempt and,
/// for `prefer` and `allow`, the second; the same with the breaker probe's
/// short connect timeout; and the TLS connector.
struct Connector {
    attempts: [postgres::Config; 2],
    probe_attempts: [postgres::Config; 2],
    retry: Retry,
    tls: MakeRustlsConnect,
    /// How long testing an idle connection may take: a connect's timeout.
    validate_timeout: Duration,
}

impl Connector {
    fn new(options: &PostgresOptions) -> Result<Connector, String> {
        let (config, tls) = client_config(options)?;
        let modes = match tls {
            tls::Tls::Off => [SslMode::Disable, SslMode::Disable],
            tls::Tls::Prefer => [SslMode::Prefer, SslMode::Disable],
            tls::Tls::Allow => [SslMode::Disable, SslMode::Require],
            tls::Tls::Require | tls::Tls::VerifyCa(_) | tls::Tls::VerifyFull(_) => [SslMode::Require; 2],
        };
        let retry = match tls {
            tls::Tls::Prefer => Retry::PlainAfterTls,
            tls::Tls::Allow => Retry::TlsAfterPlain,
            _ => Retry::Never,
        };
        let timeout = config.get_connect_timeout().copied().unwrap_or(options.connect_timeout);
        let attempt = |mode: SslMode, probe: bool| {
            let mut c = config.clone();
            c.ssl_mode(mode);
            if probe {
                c.connect_timeout(timeout.min(PROBE_TIMEOUT));
            }
            c
        };
        Ok(Connector {
            attempts: modes.map(|m| attempt(m, false)),
            probe_attempts: modes.map(|m| attempt(m, true)),
            retry,
            tls: tls.connector()?,
            validate_timeout: options.connect_timeout,
        })
    }

    fn connect(&self, probe: bool) -> Result<Client, postgres::Error> {
        let [first, second] = if probe { &self.probe_attempts } else { &self.attempts };
        match first.connect(self.tls.clone()) {
            Err(e) if self.retry.applies_to(&e) => second.connect(self.tls.clone()),
            result => result,
        }
    }
}

/// An idle connection unused this long is closed rather than handed out
/// (r2d2's default).
const IDLE_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// A connection this old is closed rather than handed out (so connections
/// move to a new server behind the same name, a pooler's new backend, …).
const MAX_LIFETIME: Duration = Duration::from_secs(30 * 60);

impl crate::pool::Connector for Connector {
    type Conn = Client;

    fn connect(&self, probe: bool) -> Result<Client, String> {
        Connector::connect(self, probe).map_err(|e| connect_error_text(&e))
    }

    /// `SELECT` of nothing, bounded like a connect: a connection that takes
    /// longer than a connect would is as good as dropped.
    fn check(&self, client: &mut Client) -> Check {
        if !client.is_closed() && client.is_valid(self.validate_timeout).is_ok() {
            Check::Alive
        } else {
            Check::Dead
        }
    }

    fn is_closed(&self, client: &Client) -> bool {
        client.is_closed()
    }

    /// Closing waits for the server to close its end: at once for a
    /// connection that is closed already, but possibly for many minutes for
    /// one whose server stopped answering (its test timed out), which is
    /// then closed on a thread of its own rather than hold up a request.
    fn close(&self, client: Client) {
        if client.is_closed() {
            return drop(client);
        }
        // Should no thread be had, the closure, and the connection with
        // it, is dropped here after all.
        let _ = std::thread::Builder::new().name("libauth-pg-close".into()).spawn(move || drop(client));
    }
}

pub struct PostgresAdapter {
    pool: Pool<Connector>,
    schema: String,
    sql: Statements,
    /// Set once the schema is known to be current in this process.
    migrated: AtomicBool,
    /// One migration attempt at a time within the process (the advisory
    /// lock does the same across processes).
    migrating: Mutex<()>,
    sealing: Sealing,
    /// When expired rate-limit rows were last deleted (see `counters`).
    counter_purge: super::counters::PurgeSchedule,
}

impl PostgresAdapter {
    /// Set up the pool. Does not connect: the first call does (and migrates
    /// the schema), so an application can start while its database is down.
    /// Fails only for invalid options.
    pub fn new(options: &PostgresOptions) -> Result<PostgresAdapter, String> {
        if options.pool_size == 0 {
            return Err("the pool size must be at least 1".to_owned());
        }
        if !is_valid_schema_name(&options.schema) {
            return Err("the schema must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63 bytes)".to_owned());
        }
        let limits = Limits {
            max: options.pool_size,
            wait: options.connect_timeout,
            probe_wait: PROBE_TIMEOUT,
            idle_timeout: Some(IDLE_TIMEOUT),
            max_lifetime: Some(MAX_LIFETIME),
        };
        Ok(PostgresAdapter {
            pool: Pool::new(Connector::new(options)?, limits),
            sql: Statements::new(&options.schema),
            schema: options.schema.clone(),
            migrated: AtomicBool::new(false),
            migrating: Mutex::new(()),
            sealing: Sealing::none(),
            counter_purge: Default::default(),
        })
    }

    /// Create or upgrade the schema now (it is otherwise done on first use)
    /// and return its version.
    pub fn migrate(&self) -> Result<usize, AdapterError> {
        // A connection is only handed out with the schema migrated.
        self.conn("migrate").map(|_| migrations::latest(MIGRATIONS) as usize)
    }

    /// The schema version of the database.
    pub fn schema_version(&self) -> Result<usize, AdapterError> {
        let mut conn = self.conn("schemaVersion")?;
        current_version(&mut *conn, &quote_ident(&self.schema)).map(|v| v as usize)
    }

    /// This adapter, storing accounts' tokens as `sealing` says.
    pub fn with_sealing(mut self, sealing: Sealing) -> PostgresAdapter {
        self.sealing = sealing;
        self
    }

    /// A pooled connection, with the schema migrated. While the server is
    /// unreachable the breaker answers at once, and one caller at a time
    /// probes with a short timeout.
    ///
    /// Only a connect that failed opens the breaker (the pool reports it
    /// at once, to this caller and to every caller waiting for a
    /// connection). A pool whose connections are all busy for the whole
    /// `connect_timeout` is load, not an outage: `Overloaded`, and the
    /// breaker stays as it is. A query that fails on a connection the
    /// server dropped fails that call only: the connection is discarded,
    /// and the next checkout finds out whether the server is there.
    fn conn(&self, operation: &'static str) -> Result<PooledClient<'_>, AdapterError> {
        let mut conn = match self.pool.get() {
            Ok(conn) => conn,
            Err(CheckoutError::Refused) => {
                return Err(AdapterError::unavailable(
                    operation,
                    "the database was unreachable moments ago; failing fast until a probe reaches it",
                ))
            }
            Err(CheckoutError::Unreachable(reason)) => return Err(AdapterError::unavailable(operation, reason)),
            Err(CheckoutError::Exhausted { waited, max }) => {
                return Err(AdapterError::overloaded(
                    operation,
                    format!("all {max} connections stayed busy for {} ms", waited.as_millis()),
                ))
            }
        };
        if !self.migrated.load(Ordering::Acquire) {
            let _one_at_a_time = self.migrating.lock().unwrap_or_else(|p| p.into_inner());
            if !self.migrated.load(Ordering::Acquire) {
                migrate_client(&mut conn, &self.schema, None)?;
                self.migrated.store(true, Ordering::Release);
            }
        }
        Ok(conn)
    }

    fn insert_user(&self, client: &mut impl GenericClient, user: &NewUser) -> Result<AdapterUser, AdapterError> {
        let op = "createUser";
        let stored = user.with_id(user.id.clone().unwrap_or_else(new_user_id));
        let verified = stored.email_verified.map(|ms| to_timestamp(op, ms)).transpose()?;
        client.execute(&self.sql.insert_user, &user_params(&stored, &verified)).map_err(|e| map_error(op, e))?;
        Ok(stored)
    }

    fn insert_account(&self, client: &mut impl GenericClient, account: &AdapterAccount) -> Result<(), AdapterError> {
        let op = "linkAccount";
        let extra = serde_json::Value::Object(account.extra.clone());
        client.execute(&self.sql.insert_account, &account_params(account, &extra)).map_err(|e| map_error(op, e))?;
        Ok(())
    }

    fn query_user(
        &self,
        operation: &'static str,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Option<AdapterUser>, AdapterError> {
        let mut conn = self.conn(operation)?;
        let row = conn.query_opt(sql, params).map_err(|e| map_error(operation, e))?;
        row.map(|r| user_from_row(&r, 0)).transpose().map_err(|e| map_error(operation, e))
    }

    fn query_authenticator(
        &self,
        operation: &'static str,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Option<Authenticator>, AdapterError> {
        let mut conn = self.conn(operation)?;
        let row = conn.query_opt(sql, params).map_err(|e| map_error(operation, e))?;
        row.map(|r| authenticator_from_row(operation, &r)).transpose()
    }

    fn query_session(
        &self,
        operation: &'static str,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Option<AdapterSession>, AdapterError> {
        let mut conn = self.conn(operation)?;
        let row = conn.query_opt(sql, params).map_err(|e| map_error(operation, e))?;
        row.map(|r| session_from_row(&r)).transpose().map_err(|e| map_error(operation, e))
    }
}

impl UserStore for PostgresAdapter {
    fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError> {
        let mut conn = self.conn("createUser")?;
        self.insert_user(&mut *conn, user)
    }

    fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
        self.query_user("getUser", &self.sql.user_by_id, &[&id])
    }

    fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError> {
        self.query_user("getUserByEmail", &self.sql.user_by_email, &[&email])
    }

    fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError> {
        let op = "updateUser";
        let verified = update.email_verified.flatten().map(|ms| to_timestamp(op, ms)).transpose()?;
        let updated = self.query_user(
            op,
            &self.sql.update_user,
            &[
                &update.id,
                &update.name.is_some(),
                &update.name.clone().flatten(),
                &update.email.is_some(),
                &update.email.clone().flatten(),
                &update.email_verified.is_some(),
                &verified,
                &update.image.is_some(),
                &update.image.clone().flatten(),
                &update.locale.is_some(),
                &update.locale.clone().flatten(),
            ],
        )?;
        updated.ok_or(AdapterError::NotFound { operation: op, what: "user" })
    }

    fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
        let op = "deleteUser";
        // Accounts, sessions and passkeys go with it (ON DELETE CASCADE).
        self.conn(op)?.execute(&self.sql.delete_user, &[&id]).map(|_| ()).map_err(|e| map_error(op, e))
    }

    /// `INSERT … ON CONFLICT (key) DO NOTHING`, then the row holding the
    /// key. A concurrent insert of the same key makes ours wait for its
    /// transaction and then do nothing, so the winner's row is there to
    /// read. Both unique indexes can still race: PostgreSQL checks the
    /// conflict target first without waiting, then the other index waits
    /// for the racer and fails with its constraint; the key's row decides
    /// that case too.
    fn ensure_user(&self, user: &NewUser) -> Result<Ensured, AdapterError> {
        let op = "createUser";
        let mut conn = self.conn(op)?;
        let stored = user.with_id(user.id.clone().unwrap_or_else(new_user_id));
        let verified = stored.email_verified.map(|ms| to_timestamp(op, ms)).transpose()?;
        let (sql, key_constraint) = if user.id.is_some() {
            (&self.sql.insert_user_unless_id, constraint::USER_ID)
        } else {
            (&self.sql.insert_user_unless_email, constraint::USER_EMAIL)
        };
        let conflict = match conn.execute(sql, &user_params(&stored, &verified)) {
            Ok(1) => return Ok(Ensured { user: stored, created: true }),
            Ok(_) => AdapterError::constraint(op, key_constraint),
            Err(e) => match map_error(op, e) {
                e @ AdapterError::Constraint { .. } => e,
                e => return Err(e),
            },
        };
        let (sql, key) = match (&user.id, &user.email) {
            (Some(id), _) => (&self.sql.user_by_id, id),
            (None, Some(email)) => (&self.sql.user_by_email, email),
            (None, None) => return Err(conflict),
        };
        let row = conn.query_opt(sql, &[key]).map_err(|e| map_error(op, e))?;
        match row.map(|r| user_from_row(&r, 0)).transpose().map_err(|e| map_error(op, e))? {
            Some(user) => Ok(Ensured { user, created: false }),
            None => Err(conflict),
        }
    }
}

impl AccountStore for PostgresAdapter {
    fn get_user_by_account(
        &self,
        provider: &str,
        provider_account_id: &str,
    ) -> Result<Option<AdapterUser>, AdapterError> {
        self.query_user("getUserByAccount", &self.sql.user_by_account, &[&provider, &provider_account_id])
    }

    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let mut conn = self.conn("linkAccount")?;
        self.insert_account(&mut *conn, account)
    }

    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        let op = "getAccount";
        let row = self
            .conn(op)?
            .query_opt(&self.sql.account_by_user, &[&user_id, &provider])
            .map_err(|e| map_error(op, e))?;
        let Some(row) = row else { return Ok(None) };
        let read = |row: &postgres::Row| -> Result<(String, AdapterAccount, serde_json::Value), postgres::Error> {
            Ok((
                row.try_get(0)?,
                AdapterAccount {
                    user_id: user_id.to_owned(),
                    account_type: super::AccountType::OAuth,
                    provider: provider.to_owned(),
                    provider_account_id: row.try_get(1)?,
                    access_token: row.try_get(2)?,
                    refresh_token: row.try_get(3)?,
                    expires_at: row.try_get(4)?,
                    token_type: row.try_get(5)?,
                    scope: row.try_get(6)?,
                    id_token: row.try_get(7)?,
                    session_state: row.try_get(8)?,
                    extra: serde_json::Map::new(),
                },
                row.try_get(9)?,
            ))
        };
        let (kind, mut account, extra) = read(&row).map_err(|e| map_error(op, e))?;
        account.account_type = super::AccountType::parse(&kind)
            .ok_or_else(|| AdapterError::other(op, format!("stored account type {kind:?} is unknown")))?;
        let serde_json::Value::Object(extra) = extra else {
            return Err(AdapterError::other(op, "stored account extra is not an object"));
        };
        account.extra = extra;
        self.sealing.open_account(account).map(Some)
    }

    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let op = "updateAccount";
        let extra = serde_json::Value::Object(account.extra.clone());
        let changed = self
            .conn(op)?
            .execute(&self.sql.update_account, &account_params(account, &extra))
            .map_err(|e| map_error(op, e))?;
        if changed == 0 {
            return Err(AdapterError::NotFound { operation: op, what: "account" });
        }
        Ok(())
    }

    fn unlink_account(&self, provider: &str, provider_account_id: &str) -> Result<(), AdapterError> {
        let op = "unlinkAccount";
        self.conn(op)?
            .execute(&self.sql.delete_account, &[&provider, &provider_account_id])
            .map(|_| ())
            .map_err(|e| map_error(op, e))
    }

    fn create_user_and_link_account(
        &self,
        user: &NewUser,
        account: &AdapterAccount,
    ) -> Result<AdapterUser, AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let mut conn = self.conn("createUser")?;
        let mut tx = conn.transaction().map_err(|e| map_error("createUser", e))?;
        let created = self.insert_user(&mut tx, user)?;
        self.insert_account(&mut tx, &AdapterAccount { user_id: created.id.clone(), ..account.clone() })?;
        // On any error above, dropping `tx` rolls the user back.
        tx.commit().map_err(|e| map_error("linkAccount", e))?;
        Ok(created)
    }

    fn ensure_account_linked(&self, account: &AdapterAccount) -> Result<bool, AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let op = "linkAccount";
        let mut conn = self.conn(op)?;
        let extra = serde_json::Value::Object(account.extra.clone());
        let inserted = conn
            .execute(&self.sql.insert_account_unless_linked, &account_params(account, &extra))
            .map_err(|e| map_error(op, e))?;
        if inserted == 1 {
            return Ok(true);
        }
        let owner = conn
            .query_opt(&self.sql.user_by_account, &[&account.provider, &account.provider_account_id])
            .map_err(|e| map_error(op, e))?
            .map(|r| r.try_get::<_, String>(0))
            .transpose()
            .map_err(|e| map_error(op, e))?;
        match owner {
            Some(owner) if owner == account.user_id => Ok(false),
            _ => Err(AdapterError::constraint(op, constraint::ACCOUNT_PROVIDER)),
        }
    }

    /// One transaction inserting both rows with `ON CONFLICT DO NOTHING`:
    /// a conflict with a concurrent first sign-in waits for its transaction
    /// to end, so when either insert did nothing, the winner's user and
    /// account are committed and the account's owner is the answer (our
    /// user, if inserted, is rolled back).
    fn ensure_user_with_account(&self, user: &NewUser, account: &AdapterAccount) -> Result<Ensured, AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let op = "createUser";
        let mut conn = self.conn(op)?;
        let stored = user.with_id(user.id.clone().unwrap_or_else(new_user_id));
        let verified = stored.email_verified.map(|ms| to_timestamp(op, ms)).transpose()?;
        let user_inserted = {
            let mut tx = conn.transaction().map_err(|e| map_error(op, e))?;
            let user_inserted = tx
                .execute(&self.sql.insert_user_unless_any, &user_params(&stored, &verified))
                .map_err(|e| map_error(op, e))?
                == 1;
            if user_inserted {
                let linked = AdapterAccount { user_id: stored.id.clone(), ..account.clone() };
                let extra = serde_json::Value::Object(linked.extra.clone());
                let account_inserted = tx
                    .execute(&self.sql.insert_account_unless_linked, &account_params(&linked, &extra))
                    .map_err(|e| map_error("linkAccount", e))?
                    == 1;
                if account_inserted {
                    tx.commit().map_err(|e| map_error("linkAccount", e))?;
                    return Ok(Ensured { user: stored, created: true });
                }
            }
            // Dropping `tx` rolls our user back.
            user_inserted
        };
        let row = conn
            .query_opt(&self.sql.user_by_account, &[&account.provider, &account.provider_account_id])
            .map_err(|e| map_error("getUserByAccount", e))?;
        if let Some(owner) = row.map(|r| user_from_row(&r, 0)).transpose().map_err(|e| map_error(op, e))? {
            return Ok(Ensured { user: owner, created: false });
        }
        // No owner: the conflict was this user's own (its email, or its
        // given id, belongs to a user without this account), or the
        // account was unlinked again since.
        let conflict = if user_inserted {
            AdapterError::constraint("linkAccount", constraint::ACCOUNT_PROVIDER)
        } else {
            let id_taken = match &user.id {
                Some(id) => conn.query_opt(&self.sql.user_by_id, &[id]).map_err(|e| map_error(op, e))?.is_some(),
                None => false,
            };
            AdapterError::constraint(op, if id_taken { constraint::USER_ID } else { constraint::USER_EMAIL })
        };
        Err(conflict)
    }
}

impl SessionStore for PostgresAdapter {
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        self.create_session_with_details(session, &SessionDetails::default())
    }

    fn create_session_with_details(
        &self,
        session: &AdapterSession,
        details: &SessionDetails,
    ) -> Result<AdapterSession, AdapterError> {
        let op = "createSession";
        let expires = to_timestamp(op, session.expires)?;
        let created_at = details.created_at.map(|ms| to_timestamp(op, ms)).transpose()?;
        self.conn(op)?
            .execute(
                &self.sql.insert_session,
                &[&session.session_token, &session.user_id, &expires, &created_at, &details.user_agent, &details.ip],
            )
            .map_err(|e| map_error(op, e))?;
        Ok(session.clone())
    }

    fn list_user_sessions(&self, user_id: &str) -> Result<Vec<ListedSession>, AdapterError> {
        let op = "listUserSessions";
        let rows = self.conn(op)?.query(&self.sql.list_user_sessions, &[&user_id]).map_err(|e| map_error(op, e))?;
        rows.iter()
            .map(|row| {
                Ok(ListedSession {
                    session_token: row.try_get(0)?,
                    expires: to_unix_ms(row.try_get(1)?),
                    details: SessionDetails {
                        created_at: row.try_get::<_, Option<_>>(2)?.map(to_unix_ms),
                        user_agent: row.try_get(3)?,
                        ip: row.try_get(4)?,
                    },
                })
            })
            .collect::<Result<Vec<_>, postgres::Error>>()
            .map_err(|e| map_error(op, e))
    }

    fn get_session(&self, session_token: &str) -> Result<Option<(AdapterSession, Option<AdapterUser>)>, AdapterError> {
        let op = "getSessionAndUser";
        let mut conn = self.conn(op)?;
        let row = conn.query_opt(&self.sql.session_and_user, &[&session_token]).map_err(|e| map_error(op, e))?;
        row.map(|r| Ok((session_from_row(&r)?, Some(user_from_row(&r, 3)?)))).transpose().map_err(|e| map_error(op, e))
    }

    fn update_session(&self, session_token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
        let op = "updateSession";
        let expires = to_timestamp(op, expires)?;
        self.query_session(op, &self.sql.update_session, &[&session_token, &expires])
    }

    fn delete_session(&self, session_token: &str) -> Result<Option<AdapterSession>, AdapterError> {
        self.query_session("deleteSession", &self.sql.delete_session, &[&session_token])
    }

    fn delete_user_sessions(&self, user_id: &str) -> Result<u64, AdapterError> {
        let op = "deleteUserSessions";
        self.conn(op)?.execute(&self.sql.delete_user_sessions, &[&user_id]).map_err(|e| map_error(op, e))
    }

    fn delete_expired_sessions(&self, now: i64) -> Result<u64, AdapterError> {
        let op = "deleteExpired";
        let mut conn = self.conn(op)?;
        conn.execute(&self.sql.delete_expired_sign_outs, &[&now]).map_err(|e| map_error(op, e))?;
        let now = to_timestamp(op, now)?;
        conn.execute(&self.sql.delete_expired_sessions, &[&now]).map_err(|e| map_error(op, e))
    }

    fn keeps_sign_outs(&self) -> bool {
        true
    }

    fn sign_out_before(&self, user_id: &str, before: i64, keep_until: i64) -> Result<(), AdapterError> {
        let op = "signOutBefore";
        self.conn(op)?
            .execute(&self.sql.sign_out_before, &[&user_id, &before, &keep_until])
            .map(|_| ())
            .map_err(|e| map_error(op, e))
    }

    fn signed_out_before(&self, user_id: &str) -> Result<Option<i64>, AdapterError> {
        let op = "signedOutBefore";
        let row = self.conn(op)?.query_opt(&self.sql.signed_out_before, &[&user_id]).map_err(|e| map_error(op, e))?;
        row.map(|row| row.try_get(0)).transpose().map_err(|e| map_error(op, e))
    }
}

impl VerificationStore for PostgresAdapter {
    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
        let op = "createVerificationToken";
        let expires = to_timestamp(op, token.expires)?;
        self.conn(op)?
            .execute(&self.sql.insert_verification_token, &[&token.identifier, &token.token, &expires])
            .map(|_| ())
            .map_err(|e| map_error(op, e))
    }

    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError> {
        let op = "useVerificationToken";
        let mut conn = self.conn(op)?;
        let row =
            conn.query_opt(&self.sql.use_verification_token, &[&identifier, &token]).map_err(|e| map_error(op, e))?;
        row.map(|r| {
            Ok(VerificationToken {
                identifier: r.try_get(0)?,
                token: r.try_get(1)?,
                expires: to_unix_ms(r.try_get(2)?),
            })
        })
        .transpose()
        .map_err(|e| map_error(op, e))
    }

    fn delete_expired_tokens(&self, now: i64) -> Result<u64, AdapterError> {
        let op = "deleteExpired";
        let now = to_timestamp(op, now)?;
        self.conn(op)?.execute(&self.sql.delete_expired_verification_tokens, &[&now]).map_err(|e| map_error(op, e))
    }
}

/// A lease is a row with its expiry: taking one inserts it, or takes over
/// a row whose expiry has passed, in one statement.
impl LeaseStore for PostgresAdapter {
    fn take_lease(&self, name: &str, ttl: Duration) -> Result<bool, AdapterError> {
        let op = "takeLease";
        let now = crate::time::now_millis() as i64;
        let until = now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
        self.conn(op)?
            .execute(&self.sql.take_lease, &[&name, &until, &now])
            .map(|n| n == 1)
            .map_err(|e| map_error(op, e))
    }

    fn release_lease(&self, name: &str) -> Result<(), AdapterError> {
        let op = "releaseLease";
        self.conn(op)?.execute(&self.sql.release_lease, &[&name]).map(|_| ()).map_err(|e| map_error(op, e))
    }
}

impl PasskeyStore for PostgresAdapter {
    fn create_authenticator(&self, authenticator: &Authenticator) -> Result<Authenticator, AdapterError> {
        let op = "createAuthenticator";
        let a = authenticator;
        let created_at = a.created_at.map(|ms| to_timestamp(op, ms)).transpose()?;
        let last_used_at = a.last_used_at.map(|ms| to_timestamp(op, ms)).transpose()?;
        self.conn(op)?
            .execute(
                &self.sql.insert_authenticator,
                &[
                    &a.credential_id,
                    &a.user_id,
                    &a.provider_account_id,
                    &a.credential_public_key,
                    &i64::from(a.counter),
                    &a.credential_device_type,
                    &a.credential_backed_up,
                    &a.transports,
                    &a.name,
                    &created_at,
                    &last_used_at,
                ],
            )
            .map_err(|e| map_error(op, e))?;
        Ok(authenticator.clone())
    }

    fn get_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        self.query_authenticator("getAuthenticator", &self.sql.authenticator_by_id, &[&credential_id])
    }

    fn list_authenticators_by_user_id(&self, user_id: &str) -> Result<Vec<Authenticator>, AdapterError> {
        let op = "listAuthenticatorsByUserId";
        let rows = self.conn(op)?.query(&self.sql.authenticators_by_user, &[&user_id]).map_err(|e| map_error(op, e))?;
        rows.iter().map(|r| authenticator_from_row(op, r)).collect()
    }

    fn update_authenticator_counter(
        &self,
        credential_id: &str,
        counter: u32,
        used_at: i64,
    ) -> Result<Authenticator, AdapterError> {
        let op = "updateAuthenticatorCounter";
        let used_at = to_timestamp(op, used_at)?;
        self.query_authenticator(
            op,
            &self.sql.update_authenticator_counter,
            &[&credential_id, &i64::from(counter), &used_at],
        )?
        .ok_or(AdapterError::NotFound { operation: op, what: "authenticator" })
    }

    fn rename_authenticator(
        &self,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<Option<Authenticator>, AdapterError> {
        self.query_authenticator("renameAuthenticator", &self.sql.rename_authenticator, &[&credential_id, &name])
    }

    fn delete_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        self.query_authenticator("deleteAuthenticator", &self.sql.delete_authenticator, &[&credential_id])
    }
}

/// The parameters of both account writes (insert and update), in their
/// SQL's order: the keys, the fields a refresh replaces, then the owner.
fn account_params<'a>(
    account: &'a AdapterAccount,
    extra: &'a serde_json::Value,
) -> [&'a (dyn postgres::types::ToSql + Sync); 12] {
    [
        &account.provider,
        &account.provider_account_id,
        account.account_type.name_ref(),
        &account.access_token,
        &account.refresh_token,
        &account.expires_at,
        &account.token_type,
        &account.scope,
        &account.id_token,
        &account.session_state,
        extra,
        &account.user_id,
    ]
}
