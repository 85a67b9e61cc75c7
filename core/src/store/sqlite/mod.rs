//! SQLite adapter: one database file (or `:memory:`), the embedded default.
//!
//! One connection behind a `Mutex`, not a pool, because:
//! - SQLite runs one writer at a time whatever we do, and every operation
//!   here is a point read or write on an indexed key (microseconds), so the
//!   lock is held very briefly;
//! - `:memory:` databases are per connection: a pool would give each
//!   connection a different, empty database;
//! - within the process there is no `SQLITE_BUSY` to handle, and
//!   transactions need no retry logic.
//!
//! Other processes on the same file (pre-fork servers) are handled by WAL
//! mode (readers don't block the writer) and a busy timeout (a writer waits
//! for another process's write instead of failing). A child after `fork()`
//! opens the file again on its first call and leaves the inherited
//! connection alone (see `Opened`).
//!
//! Another copy of SQLite in the same process (the host's: Python's
//! `sqlite3`, Django, `node:sqlite`) cannot see this connection's POSIX
//! locks, and on closing its own last connection would delete the WAL under
//! ours, so that our later commits went to a deleted file, seen by no one.
//! The connection is announced to such copies with OFD locks (see
//! `presence`), and before each call the adapter checks that the WAL
//! it writes to is still the file on disk; if not it reopens (see
//! `SqliteAdapter::conn`).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{params, Connection, ErrorCode, OptionalExtension, Row, TransactionBehavior};

use super::migrations::{self, Migrated, Migration};
use super::{
    constraint, new_user_id, AccountStore, AdapterAccount, AdapterError, AdapterSession, AdapterUser, Authenticator,
    Ensured, LeaseStore, ListedSession, NewUser, PasskeyStore, Sealing, SessionDetails, SessionStore, UserStore,
    UserUpdate, VerificationStore, VerificationToken,
};
use presence::Presence;

mod counters;
mod presence;

/// How long a write waits for another process's write before giving up
/// with `Unavailable`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema, as numbered migrations (see [`super::migrations`]); the
/// database records the versions it applied in `schema_version`. Never edit
/// a shipped migration: append a new one. Constraint names match
/// [`super::constraint`].
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "the Auth.js model: users, accounts, sessions, verification tokens",
        up: "CREATE TABLE users (
        id TEXT NOT NULL CONSTRAINT users_pkey PRIMARY KEY,
        name TEXT,
        email TEXT CONSTRAINT users_email_key UNIQUE,
        email_verified INTEGER,
        image TEXT
    );
    CREATE TABLE accounts (
        user_id TEXT NOT NULL CONSTRAINT accounts_user_fkey REFERENCES users(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        provider TEXT NOT NULL,
        provider_account_id TEXT NOT NULL,
        access_token TEXT,
        refresh_token TEXT,
        expires_at INTEGER,
        token_type TEXT,
        scope TEXT,
        id_token TEXT,
        session_state TEXT,
        extra TEXT NOT NULL DEFAULT '{}',
        CONSTRAINT accounts_provider_account_key PRIMARY KEY (provider, provider_account_id)
    );
    CREATE INDEX accounts_user_id_idx ON accounts(user_id);
    CREATE TABLE sessions (
        session_token TEXT NOT NULL CONSTRAINT sessions_pkey PRIMARY KEY,
        user_id TEXT NOT NULL CONSTRAINT sessions_user_fkey REFERENCES users(id) ON DELETE CASCADE,
        expires INTEGER NOT NULL
    );
    CREATE INDEX sessions_user_id_idx ON sessions(user_id);
    CREATE TABLE verification_tokens (
        identifier TEXT NOT NULL,
        token TEXT NOT NULL,
        expires INTEGER NOT NULL,
        CONSTRAINT verification_tokens_pkey PRIMARY KEY (identifier, token)
    );",
        down: "DROP TABLE verification_tokens; DROP TABLE sessions; DROP TABLE accounts; DROP TABLE users;",
    },
    // Passkeys (Auth.js's authenticators, plus a name and when each was
    // created and last used, unix ms). `NOT NULL` on the key: SQLite
    // otherwise lets a TEXT primary key be NULL.
    Migration {
        version: 2,
        name: "passkeys",
        up: "CREATE TABLE authenticators (
        credential_id TEXT NOT NULL CONSTRAINT authenticators_pkey PRIMARY KEY,
        user_id TEXT NOT NULL CONSTRAINT authenticators_user_fkey REFERENCES users(id) ON DELETE CASCADE,
        provider_account_id TEXT NOT NULL,
        credential_public_key TEXT NOT NULL,
        counter INTEGER NOT NULL,
        credential_device_type TEXT NOT NULL,
        credential_backed_up INTEGER NOT NULL,
        transports TEXT,
        name TEXT,
        created_at INTEGER,
        last_used_at INTEGER
    );
    CREATE INDEX authenticators_user_id_idx ON authenticators(user_id);",
        down: "DROP TABLE authenticators;",
    },
    // Rate-limit counts (one row per key and window; `IF NOT EXISTS`: the
    // rate-limit store made this table itself before it was part of the
    // schema) and named leases (the refresh of one account's tokens).
    Migration {
        version: 3,
        name: "rate-limit counters and leases",
        up: "CREATE TABLE IF NOT EXISTS rate_limits (
            key TEXT NOT NULL,
            window_ms INTEGER NOT NULL,
            number INTEGER NOT NULL,
            count INTEGER NOT NULL,
            expires INTEGER NOT NULL,
            PRIMARY KEY (key, window_ms, number)
        );
        CREATE INDEX IF NOT EXISTS rate_limits_expires_idx ON rate_limits (expires);
        CREATE TABLE leases (
            name TEXT NOT NULL PRIMARY KEY,
            expires INTEGER NOT NULL
        );",
        down: "DROP TABLE leases; DROP TABLE rate_limits;",
    },
    // The user's language (a BCP 47 tag: a provider's `locale` claim, or
    // what the user chose), for the pages' `user` resolution step. Users
    // already stored get none. `DROP COLUMN` needs SQLite 3.35 (the
    // bundled one is newer).
    Migration {
        version: 4,
        name: "users' locale",
        up: "ALTER TABLE users ADD COLUMN locale TEXT;",
        down: "ALTER TABLE users DROP COLUMN locale;",
    },
    // Where each session was made, for its owner's list of sessions: when
    // (unix ms), the browser's User-Agent and the client's network (the
    // address cut to /24 or /48). Sessions already stored get none.
    Migration {
        version: 5,
        name: "sessions' details",
        up: "ALTER TABLE sessions ADD COLUMN created_at INTEGER;
    ALTER TABLE sessions ADD COLUMN user_agent TEXT;
    ALTER TABLE sessions ADD COLUMN ip TEXT;",
        down: "ALTER TABLE sessions DROP COLUMN ip;
    ALTER TABLE sessions DROP COLUMN user_agent;
    ALTER TABLE sessions DROP COLUMN created_at;",
    },
    // Sign-outs everywhere: every session a user signed in to before
    // `ended_before` (unix ms) is over. JWT sessions are in no table, so this is
    // how "end all" reaches them. No foreign key: a credentials user has
    // no row in `users`. Kept until `keep_until`, when no such session can
    // be unexpired any more.
    Migration {
        version: 6,
        name: "sign-outs everywhere",
        up: "CREATE TABLE sign_outs (
        user_id TEXT NOT NULL PRIMARY KEY,
        ended_before INTEGER NOT NULL,
        keep_until INTEGER NOT NULL
    );",
        down: "DROP TABLE sign_outs;",
    },
];

const USER_COLUMNS: &str = "id, name, email, email_verified, image, locale";
const SESSION_COLUMNS: &str = "session_token, user_id, expires";
const AUTHENTICATOR_COLUMNS: &str = "credential_id, user_id, provider_account_id, credential_public_key, counter,
    credential_device_type, credential_backed_up, transports, name, created_at, last_used_at";

pub struct SqliteAdapter {
    /// What `open` was given, to open it again in a child after `fork()`.
    path: PathBuf,
    conn: Mutex<Opened>,
    sealing: Sealing,
    /// When expired rate-limit rows were last deleted (see `counters`).
    counter_purge: super::counters::PurgeSchedule,
}

/// The connection and the process that opened it.
///
/// A connection must not cross `fork()` (SQLite's own rule: the child
/// would share the parent's file descriptors and WAL index, but not its
/// POSIX locks). A child that calls the adapter opens the file again, and
/// never uses, nor closes, the inherited connection: closing it could
/// checkpoint and remove the WAL file under the parent. It is forgotten
/// (a small leak, once per child). A `:memory:` database has no file: the
/// child goes on with its copy (diverging from the parent's, as any
/// memory after a fork does).
struct Opened {
    /// Announces `conn` to other copies of SQLite in the process; released
    /// before `conn` closes (fields drop in order), so that a connection
    /// closing last still checkpoints and removes the WAL.
    presence: Option<Presence>,
    /// `Some` except in a child whose inherited connection was forgotten
    /// and whose own could not be opened yet.
    conn: Option<Connection>,
    /// The WAL file `conn` writes to, as (device, inode); `None` for
    /// `:memory:` or a database not in WAL mode.
    wal: Option<(u64, u64)>,
    /// When `presence` was last tried.
    presence_tried: std::time::Instant,
    pid: u32,
}

/// How often a missing `presence` is tried again.
const PRESENCE_RETRY: Duration = Duration::from_secs(1);

impl Drop for Opened {
    fn drop(&mut self) {
        if self.pid != std::process::id() {
            std::mem::forget(self.presence.take());
            std::mem::forget(self.conn.take());
        }
    }
}

impl Opened {
    fn new(path: &Path, conn: Connection) -> Opened {
        let in_memory = path == Path::new(":memory:");
        let wal = if in_memory { None } else { wal_file_id(path) };
        let presence = if wal.is_some() { Presence::hold(path) } else { None };
        Opened { presence, conn: Some(conn), wal, presence_tried: std::time::Instant::now(), pid: std::process::id() }
    }

    /// Whether `conn`'s WAL is no longer the file at `<path>-wal`: another
    /// copy of SQLite in this process deleted it (see the module's
    /// documentation). Commits would go to a file no one else reads.
    fn wal_is_detached(&self, path: &Path) -> bool {
        self.wal.is_some_and(|ours| wal_file_id(path) != Some(ours))
    }

    /// Drop a connection whose WAL was deleted, without the checkpoint a
    /// connection makes when it closes: the deleted WAL's frames were
    /// checkpointed by whoever deleted it, and copying them back now could
    /// overwrite newer pages.
    fn discard_detached(&mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true);
            self.presence = None;
            drop(conn);
        }
        self.wal = None;
    }
}

/// The (device, inode) of `<path>-wal`, if it exists.
fn wal_file_id(path: &Path) -> Option<(u64, u64)> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let meta = std::fs::metadata(wal).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    // Elsewhere (Windows) locks belong to handles, and another copy of
    // SQLite sees ours: nothing to check.
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The connection, locked for one call.
struct ConnGuard<'a>(MutexGuard<'a, Opened>);

impl std::ops::Deref for ConnGuard<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        // `SqliteAdapter::conn` hands out a guard only over a connection.
        self.0.conn.as_ref().expect("checked by SqliteAdapter::conn")
    }
}

impl std::ops::DerefMut for ConnGuard<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        self.0.conn.as_mut().expect("checked by SqliteAdapter::conn")
    }
}

impl SqliteAdapter {
    /// Open (or create) the database at `path` (`:memory:` for a private
    /// in-memory one) and bring its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteAdapter, AdapterError> {
        let path = path.as_ref().to_path_buf();
        let mut conn = open_connection(&path, "open")?;
        migrate(&mut conn, None)?;
        let opened = Opened::new(&path, conn);
        Ok(SqliteAdapter {
            path,
            conn: Mutex::new(opened),
            sealing: Sealing::none(),
            counter_purge: Default::default(),
        })
    }

    /// This adapter, storing accounts' tokens as `sealing` says.
    pub fn with_sealing(mut self, sealing: Sealing) -> SqliteAdapter {
        self.sealing = sealing;
        self
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<usize, AdapterError> {
        let conn = self.conn("schemaVersion")?;
        current_version(&conn).map(|v| v as usize)
    }

    /// This process's connection, even after a panic on another thread:
    /// rusqlite rolls back an unfinished transaction when it is dropped, so
    /// the connection is always in a usable state. In a child after
    /// `fork()`, the child's own (see [`Opened`]); failing to open it is
    /// `Unavailable` for `operation`, and the next call tries again. A
    /// connection whose WAL was deleted under it (by another copy of SQLite
    /// in this process, see the module's documentation) is replaced first,
    /// so no call commits where no one else can read: every call of the
    /// adapter and of the rate-limit store passes here.
    fn conn(&self, operation: &'static str) -> Result<ConnGuard<'_>, AdapterError> {
        let mut opened = self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let pid = std::process::id();
        if opened.pid != pid {
            if self.path != Path::new(":memory:") {
                std::mem::forget(opened.presence.take());
                std::mem::forget(opened.conn.take());
            }
            opened.pid = pid;
        }
        if opened.conn.is_some() && opened.wal_is_detached(&self.path) {
            opened.discard_detached();
        }
        if opened.conn.is_some()
            && opened.presence.is_none()
            && opened.wal.is_some()
            && opened.presence_tried.elapsed() >= PRESENCE_RETRY
        {
            // Not taken at open (another process held the byte): try again
            // (where OFD locks exist; elsewhere nothing happens).
            opened.presence_tried = std::time::Instant::now();
            opened.presence = Presence::hold(&self.path);
        }
        if opened.conn.is_none() {
            let fresh = open_connection(&self.path, operation).map_err(|e| match e {
                AdapterError::Unavailable { .. } => e,
                other => AdapterError::unavailable(operation, other.to_string()),
            })?;
            let fresh = Opened::new(&self.path, fresh);
            opened.presence = None;
            *opened = fresh;
        }
        Ok(ConnGuard(opened))
    }
}

/// A connection to `path` set up as the adapter needs it. Several
/// processes opening one new file at once race to switch it to WAL: the
/// switch needs the file to themselves, and SQLite answers "locked" (or,
/// while another process is creating the WAL index, an I/O error) at once
/// rather than through the busy handler. Such an open is tried again, for up
/// to [`BUSY_TIMEOUT`].
fn open_connection(path: &Path, op: &'static str) -> Result<Connection, AdapterError> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    let mut pause = std::time::Duration::from_millis(5);
    loop {
        match try_open_connection(path) {
            Ok(conn) => return Ok(conn),
            Err(e) if is_contention(&e) && std::time::Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(100));
            }
            Err(e) => return Err(map_error(op, None)(e)),
        }
    }
}

fn is_contention(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked | ErrorCode::SystemIoFailure))
}

fn try_open_connection(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Off by default in SQLite; needed for ON DELETE CASCADE and for the
    // references from accounts and sessions to users.
    conn.pragma_update(None, "foreign_keys", true)?;
    // Already WAL (the mode is stored in the file): nothing to switch.
    let mode: String = conn.pragma_query_value(None, "journal_mode", |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        // Answers "memory" for `:memory:`, which has no WAL; that is fine.
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))?;
    }
    Ok(conn)
}

/// Bring the schema of the database file at `path` to `target` (`None`:
/// the newest), up or down, without opening an adapter (which would first
/// migrate up): what a `migrate` command runs.
pub fn migrate_file(path: impl AsRef<Path>, target: Option<u32>) -> Result<Migrated, AdapterError> {
    let mut conn = open_connection(path.as_ref(), "migrate")?;
    migrate(&mut conn, target)
}

/// The schema version of the database file at `path` (0 for a new file),
/// and the steps that would bring it to `target`, without running them.
pub fn plan_file(path: impl AsRef<Path>, target: Option<u32>) -> Result<(u32, Vec<migrations::Step>), AdapterError> {
    let conn = open_connection(path.as_ref(), "migrate")?;
    let current = current_version(&conn)?;
    let steps =
        migrations::plan(MIGRATIONS, current, target).map_err(|e| AdapterError::other("migrate", e.to_string()))?;
    Ok((current, steps))
}

/// The highest version recorded, 0 for a database without libauth's tables.
fn current_version(conn: &Connection) -> Result<u32, AdapterError> {
    let map = map_error("schemaVersion", None);
    let has_table: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version')",
            [],
            |r| r.get(0),
        )
        .map_err(&map)?;
    if !has_table {
        return Ok(0);
    }
    conn.query_row("SELECT COALESCE(MAX(version), 0) FROM schema_version", [], |r| r.get::<_, i64>(0))
        .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
        .map_err(&map)
}

/// Migrate to `target` (`None`: the newest) in one `BEGIN IMMEDIATE`
/// transaction, which takes the write lock first, so two processes opening
/// a fresh file at once don't both create the tables, and a failing step
/// leaves the database as it was. A database newer than this library is
/// refused.
fn migrate(conn: &mut Connection, target: Option<u32>) -> Result<Migrated, AdapterError> {
    let op = "migrate";
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(map_error(op, None))?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        .map_err(map_error(op, None))?;
    let from = current_version(&tx)?;
    let steps = migrations::plan(MIGRATIONS, from, target).map_err(|e| AdapterError::other(op, e.to_string()))?;
    let mut to = from;
    for step in &steps {
        tx.execute_batch(step.sql()).map_err(map_error(op, None))?;
        match step.direction {
            migrations::Direction::Up => {
                tx.execute("INSERT INTO schema_version (version) VALUES (?1)", [step.migration.version])
            }
            migrations::Direction::Down => {
                tx.execute("DELETE FROM schema_version WHERE version = ?1", [step.migration.version])
            }
        }
        .map_err(map_error(op, None))?;
        to = step.version_after();
    }
    tx.commit().map_err(map_error(op, None))?;
    Ok(Migrated { from, to })
}

/// Turn a SQLite error into an [`AdapterError`]. SQLite reports a failed
/// foreign key without naming it, so each write says which reference it
/// checks (`foreign_key`).
fn map_error(operation: &'static str, foreign_key: Option<&'static str>) -> impl Fn(rusqlite::Error) -> AdapterError {
    move |e| match &e {
        rusqlite::Error::SqliteFailure(failure, message) => match failure.code {
            ErrorCode::ConstraintViolation => {
                let message = message.as_deref().unwrap_or("");
                let name = if message.starts_with("FOREIGN KEY") {
                    foreign_key.unwrap_or("foreign key")
                } else {
                    unique_constraint_name(message)
                };
                AdapterError::constraint(operation, name)
            }
            ErrorCode::DatabaseBusy
            | ErrorCode::DatabaseLocked
            | ErrorCode::CannotOpen
            | ErrorCode::SystemIoFailure => AdapterError::unavailable(operation, e.to_string()),
            _ => AdapterError::other(operation, e.to_string()),
        },
        _ => AdapterError::other(operation, e.to_string()),
    }
}

/// Our name for the unique index SQLite names by its columns
/// (`UNIQUE constraint failed: users.email`).
fn unique_constraint_name(message: &str) -> &'static str {
    let columns = message.rsplit(": ").next().unwrap_or("");
    match columns {
        "users.id" => constraint::USER_ID,
        "users.email" => constraint::USER_EMAIL,
        "accounts.provider, accounts.provider_account_id" => constraint::ACCOUNT_PROVIDER,
        "sessions.session_token" => constraint::SESSION_TOKEN,
        "verification_tokens.identifier, verification_tokens.token" => constraint::VERIFICATION_TOKEN,
        "authenticators.credential_id" => constraint::AUTHENTICATOR_ID,
        _ => "unique",
    }
}

fn user_from_row(row: &Row<'_>) -> rusqlite::Result<AdapterUser> {
    Ok(AdapterUser {
        id: row.get(0)?,
        name: row.get(1)?,
        email: row.get(2)?,
        email_verified: row.get(3)?,
        image: row.get(4)?,
        locale: row.get(5)?,
    })
}

fn session_from_row(row: &Row<'_>) -> rusqlite::Result<AdapterSession> {
    Ok(AdapterSession { session_token: row.get(0)?, user_id: row.get(1)?, expires: row.get(2)? })
}

fn authenticator_from_row(row: &Row<'_>) -> rusqlite::Result<Authenticator> {
    // The column is INTEGER (i64): a counter that is no u32 was not
    // written by this adapter, and is refused rather than truncated.
    let counter: i64 = row.get(4)?;
    let counter = u32::try_from(counter)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(4, rusqlite::types::Type::Integer, Box::new(e)))?;
    Ok(Authenticator {
        credential_id: row.get(0)?,
        user_id: row.get(1)?,
        provider_account_id: row.get(2)?,
        credential_public_key: row.get(3)?,
        counter,
        credential_device_type: row.get(5)?,
        credential_backed_up: row.get(6)?,
        transports: row.get(7)?,
        name: row.get(8)?,
        created_at: row.get(9)?,
        last_used_at: row.get(10)?,
    })
}

/// One authenticator (or none) from a statement over [`AUTHENTICATOR_COLUMNS`].
fn query_authenticator(
    conn: &Connection,
    op: &'static str,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Option<Authenticator>, AdapterError> {
    conn.prepare_cached(sql)
        .and_then(|mut stmt| stmt.query_row(params, authenticator_from_row).optional())
        .map_err(map_error(op, None))
}

/// The parameters of both user inserts, in [`USER_COLUMNS`]' order.
fn user_params(user: &AdapterUser) -> [&dyn rusqlite::ToSql; 6] {
    [&user.id, &user.name, &user.email, &user.email_verified, &user.image, &user.locale]
}

fn insert_user(conn: &Connection, user: &NewUser) -> Result<AdapterUser, AdapterError> {
    let stored = user.with_id(user.id.clone().unwrap_or_else(new_user_id));
    conn.prepare_cached(&format!("INSERT INTO users ({USER_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"))
        .and_then(|mut stmt| stmt.execute(user_params(&stored)))
        .map_err(map_error("createUser", None))?;
    Ok(stored)
}

/// [`insert_user`] that does nothing when a row holds the same value of
/// `target` (`"(id)"` or `"(email)"`): `None` then.
fn insert_user_unless_conflict(
    conn: &Connection,
    user: &NewUser,
    target: &str,
) -> Result<Option<AdapterUser>, AdapterError> {
    let stored = user.with_id(user.id.clone().unwrap_or_else(new_user_id));
    let inserted = conn
        .prepare_cached(&format!(
            "INSERT INTO users ({USER_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT {target} DO NOTHING"
        ))
        .and_then(|mut stmt| stmt.execute(user_params(&stored)))
        .map_err(map_error("createUser", None))?;
    Ok((inserted == 1).then_some(stored))
}

fn user_by_id(conn: &Connection, op: &'static str, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
    conn.prepare_cached(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"))
        .and_then(|mut stmt| stmt.query_row([id], user_from_row).optional())
        .map_err(map_error(op, None))
}

fn user_by_email(conn: &Connection, op: &'static str, email: &str) -> Result<Option<AdapterUser>, AdapterError> {
    conn.prepare_cached(&format!("SELECT {USER_COLUMNS} FROM users WHERE email = ?1"))
        .and_then(|mut stmt| stmt.query_row([email], user_from_row).optional())
        .map_err(map_error(op, None))
}

fn user_by_account(
    conn: &Connection,
    op: &'static str,
    provider: &str,
    provider_account_id: &str,
) -> Result<Option<AdapterUser>, AdapterError> {
    conn.prepare_cached(
        "SELECT u.id, u.name, u.email, u.email_verified, u.image, u.locale
         FROM accounts a JOIN users u ON u.id = a.user_id
         WHERE a.provider = ?1 AND a.provider_account_id = ?2",
    )
    .and_then(|mut stmt| stmt.query_row([provider, provider_account_id], user_from_row).optional())
    .map_err(map_error(op, None))
}

fn insert_account(conn: &Connection, account: &AdapterAccount) -> Result<(), AdapterError> {
    let op = "linkAccount";
    let extra = serde_json::to_string(&account.extra).map_err(|e| AdapterError::other(op, e.to_string()))?;
    // Both account writes take the parameters of `account_params`.
    conn.prepare_cached(
        "INSERT INTO accounts (provider, provider_account_id, type, access_token, refresh_token, expires_at,
            token_type, scope, id_token, session_state, extra, user_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )
    .and_then(|mut stmt| stmt.execute(account_params(account, &extra)))
    .map_err(map_error(op, Some(constraint::ACCOUNT_USER)))?;
    Ok(())
}

/// The parameters of both account writes (insert and update), in their
/// SQL's order: the keys, the fields a refresh replaces, then the owner.
fn account_params<'a>(account: &'a AdapterAccount, extra: &'a dyn rusqlite::ToSql) -> [&'a dyn rusqlite::ToSql; 12] {
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

impl UserStore for SqliteAdapter {
    fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError> {
        insert_user(&*self.conn("createUser")?, user)
    }

    fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
        user_by_id(&*self.conn("getUser")?, "getUser", id)
    }

    fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError> {
        user_by_email(&*self.conn("getUserByEmail")?, "getUserByEmail", email)
    }

    /// `INSERT … ON CONFLICT (key) DO NOTHING`, then the row holding the
    /// key. Writes are serialised (the connection's lock in this process,
    /// SQLite's write lock across processes), so after a conflict the
    /// winner's row is there to read.
    fn ensure_user(&self, user: &NewUser) -> Result<Ensured, AdapterError> {
        let op = "createUser";
        let conn = self.conn("createUser")?;
        let (target, key_constraint) =
            if user.id.is_some() { ("(id)", constraint::USER_ID) } else { ("(email)", constraint::USER_EMAIL) };
        if let Some(created) = insert_user_unless_conflict(&conn, user, target)? {
            return Ok(Ensured { user: created, created: true });
        }
        let existing = match (&user.id, &user.email) {
            (Some(id), _) => user_by_id(&conn, op, id)?,
            (None, Some(email)) => user_by_email(&conn, op, email)?,
            (None, None) => None,
        };
        // Gone again already (another process deleted it): report the
        // conflict as `create_user` would have.
        existing.map(|user| Ensured { user, created: false }).ok_or(AdapterError::constraint(op, key_constraint))
    }

    fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError> {
        let op = "updateUser";
        let conn = self.conn("updateUser")?;
        // One statement for any subset of fields: each field has a "change
        // it" flag, so `null` (clear) and "absent" (keep) stay distinct.
        let updated = conn
            .prepare_cached(&format!(
                "UPDATE users SET
                    name = CASE WHEN ?2 THEN ?3 ELSE name END,
                    email = CASE WHEN ?4 THEN ?5 ELSE email END,
                    email_verified = CASE WHEN ?6 THEN ?7 ELSE email_verified END,
                    image = CASE WHEN ?8 THEN ?9 ELSE image END,
                    locale = CASE WHEN ?10 THEN ?11 ELSE locale END
                 WHERE id = ?1 RETURNING {USER_COLUMNS}"
            ))
            .and_then(|mut stmt| {
                stmt.query_row(
                    params![
                        update.id,
                        update.name.is_some(),
                        update.name.clone().flatten(),
                        update.email.is_some(),
                        update.email.clone().flatten(),
                        update.email_verified.is_some(),
                        update.email_verified.flatten(),
                        update.image.is_some(),
                        update.image.clone().flatten(),
                        update.locale.is_some(),
                        update.locale.clone().flatten(),
                    ],
                    user_from_row,
                )
                .optional()
            })
            .map_err(map_error(op, None))?;
        updated.ok_or(AdapterError::NotFound { operation: op, what: "user" })
    }

    fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
        let conn = self.conn("deleteUser")?;
        // Accounts, sessions and passkeys go with it (ON DELETE CASCADE).
        conn.prepare_cached("DELETE FROM users WHERE id = ?1")
            .and_then(|mut stmt| stmt.execute([id]))
            .map(|_| ())
            .map_err(map_error("deleteUser", None))
    }
}

impl AccountStore for SqliteAdapter {
    fn get_user_by_account(
        &self,
        provider: &str,
        provider_account_id: &str,
    ) -> Result<Option<AdapterUser>, AdapterError> {
        user_by_account(&*self.conn("getUserByAccount")?, "getUserByAccount", provider, provider_account_id)
    }

    fn ensure_account_linked(&self, account: &AdapterAccount) -> Result<bool, AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let op = "linkAccount";
        let conn = self.conn("linkAccount")?;
        let extra = serde_json::to_string(&account.extra).map_err(|e| AdapterError::other(op, e.to_string()))?;
        let inserted = conn
            .prepare_cached(
                "INSERT INTO accounts (provider, provider_account_id, type, access_token, refresh_token, expires_at,
                    token_type, scope, id_token, session_state, extra, user_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                 ON CONFLICT (provider, provider_account_id) DO NOTHING",
            )
            .and_then(|mut stmt| stmt.execute(account_params(account, &extra)))
            .map_err(map_error(op, Some(constraint::ACCOUNT_USER)))?;
        if inserted == 1 {
            return Ok(true);
        }
        match user_by_account(&conn, op, &account.provider, &account.provider_account_id)? {
            Some(owner) if owner.id == account.user_id => Ok(false),
            _ => Err(AdapterError::constraint(op, constraint::ACCOUNT_PROVIDER)),
        }
    }

    /// Under `BEGIN IMMEDIATE` (the write lock, taken first): no other
    /// writer in any process can link the account between the look-up and
    /// the inserts, so the look-up decides.
    fn ensure_user_with_account(&self, user: &NewUser, account: &AdapterAccount) -> Result<Ensured, AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let mut conn = self.conn("createUser")?;
        let tx =
            conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(map_error("createUser", None))?;
        if let Some(owner) = user_by_account(&tx, "getUserByAccount", &account.provider, &account.provider_account_id)?
        {
            return Ok(Ensured { user: owner, created: false });
        }
        let created = insert_user(&tx, user)?;
        insert_account(&tx, &AdapterAccount { user_id: created.id.clone(), ..account.clone() })?;
        tx.commit().map_err(map_error("linkAccount", None))?;
        Ok(Ensured { user: created, created: true })
    }

    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        insert_account(&*self.conn("linkAccount")?, account)
    }

    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        let op = "getAccount";
        let conn = self.conn("getAccount")?;
        let row = conn
            .prepare_cached(
                "SELECT type, provider_account_id, access_token, refresh_token, expires_at, token_type, scope,
                    id_token, session_state, extra
                 FROM accounts WHERE user_id = ?1 AND provider = ?2 ORDER BY rowid DESC LIMIT 1",
            )
            .and_then(|mut stmt| {
                stmt.query_row([user_id, provider], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        AdapterAccount {
                            user_id: user_id.to_owned(),
                            account_type: super::AccountType::OAuth,
                            provider: provider.to_owned(),
                            provider_account_id: row.get(1)?,
                            access_token: row.get(2)?,
                            refresh_token: row.get(3)?,
                            expires_at: row.get(4)?,
                            token_type: row.get(5)?,
                            scope: row.get(6)?,
                            id_token: row.get(7)?,
                            session_state: row.get(8)?,
                            extra: serde_json::Map::new(),
                        },
                        row.get::<_, String>(9)?,
                    ))
                })
                .optional()
            })
            .map_err(map_error(op, None))?;
        let Some((kind, mut account, extra)) = row else { return Ok(None) };
        account.account_type = super::AccountType::parse(&kind)
            .ok_or_else(|| AdapterError::other(op, format!("stored account type {kind:?} is unknown")))?;
        account.extra = serde_json::from_str(&extra).map_err(|e| AdapterError::other(op, e.to_string()))?;
        self.sealing.open_account(account).map(Some)
    }

    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let op = "updateAccount";
        let extra = serde_json::to_string(&account.extra).map_err(|e| AdapterError::other(op, e.to_string()))?;
        let conn = self.conn("updateAccount")?;
        let changed = conn
            .prepare_cached(
                "UPDATE accounts SET type = ?3, access_token = ?4, refresh_token = ?5, expires_at = ?6,
                    token_type = ?7, scope = ?8, id_token = ?9, session_state = ?10, extra = ?11
                 WHERE provider = ?1 AND provider_account_id = ?2 AND user_id = ?12",
            )
            .and_then(|mut stmt| stmt.execute(account_params(account, &extra)))
            .map_err(map_error(op, None))?;
        if changed == 0 {
            return Err(AdapterError::NotFound { operation: op, what: "account" });
        }
        Ok(())
    }

    fn unlink_account(&self, provider: &str, provider_account_id: &str) -> Result<(), AdapterError> {
        let conn = self.conn("unlinkAccount")?;
        conn.prepare_cached("DELETE FROM accounts WHERE provider = ?1 AND provider_account_id = ?2")
            .and_then(|mut stmt| stmt.execute([provider, provider_account_id]))
            .map(|_| ())
            .map_err(map_error("unlinkAccount", None))
    }

    fn create_user_and_link_account(
        &self,
        user: &NewUser,
        account: &AdapterAccount,
    ) -> Result<AdapterUser, AdapterError> {
        let sealed = self.sealing.seal_account(account)?;
        let account: &AdapterAccount = &sealed;
        let mut conn = self.conn("createUser")?;
        let tx =
            conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(map_error("createUser", None))?;
        let created = insert_user(&tx, user)?;
        insert_account(&tx, &AdapterAccount { user_id: created.id.clone(), ..account.clone() })?;
        // On any error above, dropping `tx` rolls the user back.
        tx.commit().map_err(map_error("linkAccount", None))?;
        Ok(created)
    }
}

impl SessionStore for SqliteAdapter {
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        self.create_session_with_details(session, &SessionDetails::default())
    }

    fn create_session_with_details(
        &self,
        session: &AdapterSession,
        details: &SessionDetails,
    ) -> Result<AdapterSession, AdapterError> {
        let conn = self.conn("createSession")?;
        conn.prepare_cached(
            "INSERT INTO sessions (session_token, user_id, expires, created_at, user_agent, ip)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .and_then(|mut stmt| {
            stmt.execute(params![
                session.session_token,
                session.user_id,
                session.expires,
                details.created_at,
                details.user_agent,
                details.ip
            ])
        })
        .map_err(map_error("createSession", Some(constraint::SESSION_USER)))?;
        Ok(session.clone())
    }

    fn list_user_sessions(&self, user_id: &str) -> Result<Vec<ListedSession>, AdapterError> {
        let op = "listUserSessions";
        let conn = self.conn(op)?;
        let mut stmt = conn
            .prepare_cached(
                "SELECT session_token, expires, created_at, user_agent, ip FROM sessions WHERE user_id = ?1",
            )
            .map_err(map_error(op, None))?;
        let rows = stmt
            .query_map([user_id], |row| {
                Ok(ListedSession {
                    session_token: row.get(0)?,
                    expires: row.get(1)?,
                    details: SessionDetails { created_at: row.get(2)?, user_agent: row.get(3)?, ip: row.get(4)? },
                })
            })
            .map_err(map_error(op, None))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(map_error(op, None))
    }

    /// Two point reads on primary keys, not one join: SQLite re-prepares
    /// the join on every execution (its constant propagation marks the
    /// statement as depending on the bound token), about 120,000
    /// instructions a call, while each point read stays prepared (about
    /// 6,000). Both run on this adapter's one connection under its lock; a
    /// session whose user is gone reads as none, as the join answered.
    fn get_session(&self, session_token: &str) -> Result<Option<(AdapterSession, Option<AdapterUser>)>, AdapterError> {
        let op = "getSessionAndUser";
        let conn = self.conn(op)?;
        let session = conn
            .prepare_cached(&format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE session_token = ?1"))
            .and_then(|mut stmt| stmt.query_row([session_token], session_from_row).optional())
            .map_err(map_error(op, None))?;
        let Some(session) = session else { return Ok(None) };
        Ok(user_by_id(&conn, op, &session.user_id)?.map(|user| (session, Some(user))))
    }

    fn update_session(&self, session_token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
        let conn = self.conn("updateSession")?;
        conn.prepare_cached(&format!(
            "UPDATE sessions SET expires = ?2 WHERE session_token = ?1 RETURNING {SESSION_COLUMNS}"
        ))
        .and_then(|mut stmt| stmt.query_row(params![session_token, expires], session_from_row).optional())
        .map_err(map_error("updateSession", None))
    }

    fn delete_session(&self, session_token: &str) -> Result<Option<AdapterSession>, AdapterError> {
        let conn = self.conn("deleteSession")?;
        conn.prepare_cached(&format!("DELETE FROM sessions WHERE session_token = ?1 RETURNING {SESSION_COLUMNS}"))
            .and_then(|mut stmt| stmt.query_row([session_token], session_from_row).optional())
            .map_err(map_error("deleteSession", None))
    }

    fn delete_user_sessions(&self, user_id: &str) -> Result<u64, AdapterError> {
        let conn = self.conn("deleteUserSessions")?;
        conn.execute("DELETE FROM sessions WHERE user_id = ?1", [user_id])
            .map(|n| n as u64)
            .map_err(map_error("deleteUserSessions", None))
    }

    fn delete_expired_sessions(&self, now: i64) -> Result<u64, AdapterError> {
        let conn = self.conn("deleteExpired")?;
        conn.execute("DELETE FROM sign_outs WHERE keep_until < ?1", [now]).map_err(map_error("deleteExpired", None))?;
        conn.execute("DELETE FROM sessions WHERE expires < ?1", [now])
            .map(|n| n as u64)
            .map_err(map_error("deleteExpired", None))
    }

    fn keeps_sign_outs(&self) -> bool {
        true
    }

    fn sign_out_before(&self, user_id: &str, before: i64, keep_until: i64) -> Result<(), AdapterError> {
        let op = "signOutBefore";
        let conn = self.conn(op)?;
        // One statement: two processes ending the same user's sessions
        // keep the later time, whichever writes last.
        conn.prepare_cached(
            "INSERT INTO sign_outs (user_id, ended_before, keep_until) VALUES (?1, ?2, ?3)
             ON CONFLICT (user_id) DO UPDATE SET ended_before = max(ended_before, excluded.ended_before),
                 keep_until = max(keep_until, excluded.keep_until)",
        )
        .and_then(|mut stmt| stmt.execute(params![user_id, before, keep_until]))
        .map(|_| ())
        .map_err(map_error(op, None))
    }

    fn signed_out_before(&self, user_id: &str) -> Result<Option<i64>, AdapterError> {
        let op = "signedOutBefore";
        let conn = self.conn(op)?;
        conn.prepare_cached("SELECT ended_before FROM sign_outs WHERE user_id = ?1")
            .and_then(|mut stmt| stmt.query_row([user_id], |row| row.get(0)).optional())
            .map_err(map_error(op, None))
    }
}

impl VerificationStore for SqliteAdapter {
    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
        let conn = self.conn("createVerificationToken")?;
        conn.prepare_cached("INSERT INTO verification_tokens (identifier, token, expires) VALUES (?1, ?2, ?3)")
            .and_then(|mut stmt| stmt.execute(params![token.identifier, token.token, token.expires]))
            .map(|_| ())
            .map_err(map_error("createVerificationToken", None))
    }

    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError> {
        let conn = self.conn("useVerificationToken")?;
        // One statement: finding and consuming the token cannot be split by
        // another process using the same token.
        conn.prepare_cached(
            "DELETE FROM verification_tokens WHERE identifier = ?1 AND token = ?2
             RETURNING identifier, token, expires",
        )
        .and_then(|mut stmt| {
            stmt.query_row([identifier, token], |row| {
                Ok(VerificationToken { identifier: row.get(0)?, token: row.get(1)?, expires: row.get(2)? })
            })
            .optional()
        })
        .map_err(map_error("useVerificationToken", None))
    }

    fn delete_expired_tokens(&self, now: i64) -> Result<u64, AdapterError> {
        let conn = self.conn("deleteExpired")?;
        conn.execute("DELETE FROM verification_tokens WHERE expires < ?1", [now])
            .map(|n| n as u64)
            .map_err(map_error("deleteExpired", None))
    }
}

/// A lease is a row with its expiry: taking one inserts it, or takes over
/// a row whose expiry has passed, in one statement.
impl LeaseStore for SqliteAdapter {
    fn take_lease(&self, name: &str, ttl: Duration) -> Result<bool, AdapterError> {
        let now = crate::time::now_millis() as i64;
        let until = now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
        let conn = self.conn("takeLease")?;
        conn.prepare_cached(
            "INSERT INTO leases (name, expires) VALUES (?1, ?2)
             ON CONFLICT (name) DO UPDATE SET expires = excluded.expires WHERE leases.expires <= ?3",
        )
        .and_then(|mut stmt| stmt.execute(params![name, until, now]))
        .map(|changed| changed == 1)
        .map_err(map_error("takeLease", None))
    }

    fn release_lease(&self, name: &str) -> Result<(), AdapterError> {
        let conn = self.conn("releaseLease")?;
        conn.execute("DELETE FROM leases WHERE name = ?1", [name]).map(|_| ()).map_err(map_error("releaseLease", None))
    }
}

impl PasskeyStore for SqliteAdapter {
    fn create_authenticator(&self, authenticator: &Authenticator) -> Result<Authenticator, AdapterError> {
        let op = "createAuthenticator";
        let a = authenticator;
        let conn = self.conn(op)?;
        conn.prepare_cached(&format!(
            "INSERT INTO authenticators ({AUTHENTICATOR_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
        ))
        .and_then(|mut stmt| {
            stmt.execute(params![
                a.credential_id,
                a.user_id,
                a.provider_account_id,
                a.credential_public_key,
                i64::from(a.counter),
                a.credential_device_type,
                a.credential_backed_up,
                a.transports,
                a.name,
                a.created_at,
                a.last_used_at,
            ])
        })
        .map_err(map_error(op, Some(constraint::AUTHENTICATOR_USER)))?;
        Ok(authenticator.clone())
    }

    fn get_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        let op = "getAuthenticator";
        let sql = format!("SELECT {AUTHENTICATOR_COLUMNS} FROM authenticators WHERE credential_id = ?1");
        query_authenticator(&*self.conn(op)?, op, &sql, [credential_id])
    }

    /// Oldest first; rows without `created_at` (written by Auth.js) before
    /// the others, ties by credential id (SQLite's BINARY collation: bytewise,
    /// as the other adapters).
    fn list_authenticators_by_user_id(&self, user_id: &str) -> Result<Vec<Authenticator>, AdapterError> {
        let op = "listAuthenticatorsByUserId";
        let conn = self.conn(op)?;
        conn.prepare_cached(&format!(
            "SELECT {AUTHENTICATOR_COLUMNS} FROM authenticators WHERE user_id = ?1
             ORDER BY created_at NULLS FIRST, credential_id"
        ))
        .and_then(|mut stmt| stmt.query_map([user_id], authenticator_from_row)?.collect())
        .map_err(map_error(op, None))
    }

    fn update_authenticator_counter(
        &self,
        credential_id: &str,
        counter: u32,
        used_at: i64,
    ) -> Result<Authenticator, AdapterError> {
        let op = "updateAuthenticatorCounter";
        let sql = format!(
            "UPDATE authenticators SET counter = ?2, last_used_at = ?3 WHERE credential_id = ?1
             RETURNING {AUTHENTICATOR_COLUMNS}"
        );
        query_authenticator(&*self.conn(op)?, op, &sql, params![credential_id, i64::from(counter), used_at])?
            .ok_or(AdapterError::NotFound { operation: op, what: "authenticator" })
    }

    fn rename_authenticator(
        &self,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<Option<Authenticator>, AdapterError> {
        let op = "renameAuthenticator";
        let sql =
            format!("UPDATE authenticators SET name = ?2 WHERE credential_id = ?1 RETURNING {AUTHENTICATOR_COLUMNS}");
        query_authenticator(&*self.conn(op)?, op, &sql, params![credential_id, name])
    }

    fn delete_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        let op = "deleteAuthenticator";
        let sql = format!("DELETE FROM authenticators WHERE credential_id = ?1 RETURNING {AUTHENTICATOR_COLUMNS}");
        query_authenticator(&*self.conn(op)?, op, &sql, [credential_id])
    }
}
