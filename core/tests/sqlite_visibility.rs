//! Issue 36: every write the engine commits is visible to other
//! connections as soon as the call returns, with the host's own SQLite
//! opening and closing the same file in the same process (as Python's
//! `sqlite3` module or Django does).
//!
//! The cause: SQLite coordinates connections with POSIX locks, which
//! belong to the process, so a second copy of SQLite in the process (the
//! host's) could not see the engine's connection. Closing its own last
//! connection, it checkpointed and deleted the `-wal` file under the
//! engine's, whose later commits (refreshed tokens, sessions, limiter
//! counts, leases) went to the deleted file: seen by no other connection or
//! process until the engine was dropped. The SQLite adapter now announces
//! its connections with OFD locks, which every copy sees, and reopens a
//! connection whose WAL was deleted anyway.
//!
//! Each write shared by the adapter's connection (users, accounts, sessions,
//! verification tokens, passkey counters, rate-limit counts) is checked
//! from another process (SQLite) or another connection (PostgreSQL), one
//! write at a time and from many threads at once.
#![cfg_attr(not(feature = "integration"), allow(dead_code, unused_imports))]

mod common;
#[path = "common/host_sqlite.rs"]
mod host_sqlite;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use host_sqlite::HostSqlite;
use libauth_core::store::{
    AccountType, AdapterAccount, AdapterSession, Authenticator, CounterStore, LeaseStore, NewUser, PostgresAdapter,
    PostgresOptions, SqliteAdapter, VerificationToken,
};
use libauth_core::Adapter;

enum Db {
    /// With the host's SQLite (the system's libsqlite3), when the test
    /// has it (`integration`).
    Sqlite(TempFile, Option<HostSqlite>),
    Postgres(TempSchema),
}

struct Fixture {
    adapter: Arc<dyn Adapter>,
    /// The rate-limit counts in the adapter's database (`"database"`).
    store: Arc<dyn CounterStore>,
    /// The refresh leases in the adapter's database.
    leases: Arc<dyn LeaseStore>,
    db: Db,
}

impl Fixture {
    fn sqlite() -> Fixture {
        Fixture::sqlite_with(temp_db_path(), Some(HostSqlite::load()))
    }

    fn sqlite_with(file: TempFile, host: Option<HostSqlite>) -> Fixture {
        let backend = Arc::new(SqliteAdapter::open(&file.0).unwrap());
        Fixture { adapter: backend.clone(), store: backend.clone(), leases: backend, db: Db::Sqlite(file, host) }
    }

    fn postgres() -> Fixture {
        let schema = temp_schema();
        let options = PostgresOptions { schema: schema.0.clone(), ..PostgresOptions::new(postgres_url()) };
        let backend = Arc::new(PostgresAdapter::new(&options).unwrap());
        Fixture { adapter: backend.clone(), store: backend.clone(), leases: backend, db: Db::Postgres(schema) }
    }

    /// What a host with its own SQLite does between two of the engine's
    /// calls: open the file, read, close its last connection.
    fn host_reads(&self) {
        if let Db::Sqlite(file, Some(host)) = &self.db {
            host.open_read_close(&file.0);
        }
    }

    /// `sql` (one text value; `{s}` is the tables' schema) through another
    /// connection: another process for SQLite.
    fn read(&self, sql: &str) -> Option<String> {
        match &self.db {
            Db::Sqlite(file, _) => host_sqlite::value_elsewhere(&file.0, &sql.replace("{s}", "")),
            Db::Postgres(schema) => {
                let mut client = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
                let sql = sql.replace("{s}", &format!("\"{}\".", schema.0));
                client.query_one(&sql, &[]).unwrap().get::<_, Option<String>>(0)
            }
        }
    }

    fn count(&self, sql: &str) -> u64 {
        self.read(&format!("SELECT CAST(COUNT(*) AS TEXT) FROM {sql}")).unwrap().parse().unwrap()
    }
}

fn user(email: &str) -> NewUser {
    NewUser { email: Some(email.to_owned()), name: Some("Ada".into()), ..NewUser::default() }
}

fn passkey(user_id: &str, credential_id: &str) -> Authenticator {
    Authenticator {
        credential_id: credential_id.to_owned(),
        user_id: user_id.to_owned(),
        provider_account_id: credential_id.to_owned(),
        credential_public_key: "pQECAyYgASFYIMx4k0AzZ3p1YV9kZXZpY2Vfa2V5X3g=".to_owned(),
        counter: 0,
        credential_device_type: "multiDevice".to_owned(),
        credential_backed_up: true,
        transports: None,
        name: None,
        created_at: Some(1),
        last_used_at: None,
    }
}

const DAY_MS: i64 = 86_400_000;

/// Each kind of write, one after the other, the host's SQLite opening and
/// closing the file before each: every one is there for another connection
/// as soon as the call returns.
fn each_write_is_visible_at_once(f: &Fixture) {
    let now = libauth_core::time::now_millis() as i64;
    f.host_reads();
    let u = f.adapter.create_user(&user("ada@example.com")).unwrap();
    assert_eq!(f.count(&format!("{{s}}users WHERE id = '{}'", u.id)), 1, "createUser");

    f.host_reads();
    let mut account = AdapterAccount::new(AccountType::OAuth, "tiktok", "open-1");
    account.user_id = u.id.clone();
    account.refresh_token = Some("rft.first".into());
    f.adapter.link_account(&account).unwrap();
    assert_eq!(f.read("SELECT refresh_token FROM {s}accounts").as_deref(), Some("rft.first"), "linkAccount");

    // A refresh: the rotated refresh token replaces the spent one.
    f.host_reads();
    account.refresh_token = Some("rft.second".into());
    account.access_token = Some("act.second".into());
    f.adapter.update_account(&account).unwrap();
    assert_eq!(f.read("SELECT refresh_token FROM {s}accounts").as_deref(), Some("rft.second"), "updateAccount");

    f.host_reads();
    let session = AdapterSession { session_token: "sess-1".into(), user_id: u.id.clone(), expires: now + DAY_MS };
    f.adapter.create_session(&session).unwrap();
    assert_eq!(f.count("{s}sessions WHERE session_token = 'sess-1'"), 1, "createSession");
    let before = f.read("SELECT CAST(expires AS TEXT) FROM {s}sessions WHERE session_token = 'sess-1'");
    f.host_reads();
    f.adapter.update_session("sess-1", now + 2 * DAY_MS).unwrap().unwrap();
    let after = f.read("SELECT CAST(expires AS TEXT) FROM {s}sessions WHERE session_token = 'sess-1'");
    assert_ne!(before, after, "updateSession");
    f.host_reads();
    f.adapter.delete_session("sess-1").unwrap().unwrap();
    assert_eq!(f.count("{s}sessions"), 0, "deleteSession");

    f.host_reads();
    let token =
        VerificationToken { identifier: "ada@example.com".into(), token: "hash-1".into(), expires: now + DAY_MS };
    f.adapter.create_verification_token(&token).unwrap();
    assert_eq!(f.count("{s}verification_tokens"), 1, "createVerificationToken");
    f.host_reads();
    f.adapter.use_verification_token("ada@example.com", "hash-1").unwrap().unwrap();
    assert_eq!(f.count("{s}verification_tokens"), 0, "useVerificationToken");

    f.host_reads();
    f.adapter.create_authenticator(&passkey(&u.id, "cred-1")).unwrap();
    f.host_reads();
    f.adapter.update_authenticator_counter("cred-1", 7, now).unwrap();
    assert_eq!(f.read("SELECT CAST(counter AS TEXT) FROM {s}authenticators").as_deref(), Some("7"), "counter");

    // The limiter's counts and the refresh leases share the connection.
    for n in 1..=3u64 {
        f.host_reads();
        assert_eq!(f.store.consume("signin:k", 1, Duration::from_secs(30)).unwrap().count, n);
        assert_eq!(f.read("SELECT CAST(SUM(count) AS TEXT) FROM {s}rate_limits"), Some(n.to_string()), "count {n}");
    }
    f.host_reads();
    f.store.refund("signin:k", 3, Duration::from_secs(30)).unwrap();
    assert_eq!(f.read("SELECT CAST(SUM(count) AS TEXT) FROM {s}rate_limits").as_deref(), Some("0"), "refund");
    f.host_reads();
    assert!(f.leases.take_lease("refresh:k", Duration::from_secs(30)).unwrap(), "the lease is free");
    assert_eq!(f.read("SELECT CAST(COUNT(*) AS TEXT) FROM {s}leases").as_deref(), Some("1"), "lease taken");
    f.host_reads();
    assert!(!f.leases.take_lease("refresh:k", Duration::from_secs(30)).unwrap(), "held: not taken twice");
    f.host_reads();
    f.leases.release_lease("refresh:k").unwrap();
    assert_eq!(f.read("SELECT CAST(COUNT(*) AS TEXT) FROM {s}leases").as_deref(), Some("0"), "lease released");
}

/// Many threads write at once (sessions, verification tokens, counter
/// bumps, rate-limit counts) while the host's SQLite opens and closes the
/// file again and again: once they return, another connection sees every
/// write.
fn concurrent_writes_are_all_visible(f: &Fixture) {
    const THREADS: usize = 8;
    const EACH: usize = 15;
    let now = libauth_core::time::now_millis() as i64;
    let owner = f.adapter.create_user(&user("grace@example.com")).unwrap();
    f.adapter.create_authenticator(&passkey(&owner.id, "cred-many")).unwrap();
    let f = Arc::new(f);
    std::thread::scope(|scope| {
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let host = {
            let (f, done) = (f.clone(), done.clone());
            scope.spawn(move || {
                let mut rounds = 0;
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    f.host_reads();
                    rounds += 1;
                    std::thread::sleep(Duration::from_millis(2));
                }
                rounds
            })
        };
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (f, owner) = (f.clone(), owner.id.clone());
                scope.spawn(move || {
                    for i in 0..EACH {
                        let token = format!("s-{t}-{i}");
                        let session =
                            AdapterSession { session_token: token, user_id: owner.clone(), expires: now + DAY_MS };
                        f.adapter.create_session(&session).unwrap();
                        let vt = VerificationToken {
                            identifier: format!("u{t}@example.com"),
                            token: format!("v-{t}-{i}"),
                            expires: now + DAY_MS,
                        };
                        f.adapter.create_verification_token(&vt).unwrap();
                        f.store.consume("signin:127.0.0.1", 1, Duration::from_secs(600)).unwrap();
                        f.adapter.update_authenticator_counter("cred-many", (t * EACH + i) as u32, now).unwrap();
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        assert!(host.join().unwrap() > 0, "the host's SQLite ran meanwhile");
    });
    let total = (THREADS * EACH) as u64;
    assert_eq!(f.count("{s}sessions"), total, "every session");
    assert_eq!(f.count("{s}verification_tokens"), total, "every verification token");
    let counted = f.read("SELECT CAST(SUM(count) AS TEXT) FROM {s}rate_limits WHERE key LIKE 'signin%'");
    assert_eq!(counted, Some(total.to_string()), "every rate-limit count");
    assert_eq!(f.count("{s}authenticators WHERE last_used_at IS NOT NULL"), 1, "the counter bumps");
}

#[test]
#[cfg(feature = "integration")] // the system's libsqlite3
fn r36_sqlite_each_write_is_visible_to_another_process_at_once() {
    each_write_is_visible_at_once(&Fixture::sqlite());
}

#[test]
#[cfg(feature = "integration")] // the system's libsqlite3
fn r36_sqlite_concurrent_writes_are_all_visible_to_another_process() {
    concurrent_writes_are_all_visible(&Fixture::sqlite());
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL
fn r36_postgres_each_write_is_visible_to_another_connection_at_once() {
    each_write_is_visible_at_once(&Fixture::postgres());
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL
fn r36_postgres_concurrent_writes_are_all_visible_to_another_connection() {
    concurrent_writes_are_all_visible(&Fixture::postgres());
}

/// The WAL deleted anyway (where the OFD locks are not available, or by a
/// host that removed it itself): the next call notices and reopens, so its
/// write is visible.
#[test]
fn r36_sqlite_a_deleted_wal_is_noticed_before_the_next_write() {
    let f = Fixture::sqlite_with(temp_db_path(), None);
    let Db::Sqlite(file, _) = &f.db else { unreachable!() };
    f.adapter.create_user(&user("first@example.com")).unwrap();
    // As SQLite does when it closes a database's last connection: copy the
    // WAL into the database file, then delete it.
    let other = rusqlite::Connection::open(&file.0).unwrap();
    other.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    drop(other);
    for suffix in ["-wal", "-shm"] {
        let mut p = file.0.clone().into_os_string();
        p.push(suffix);
        std::fs::remove_file(p).unwrap();
    }
    f.adapter.create_user(&user("second@example.com")).unwrap();
    assert_eq!(f.count("{s}users WHERE email = 'second@example.com'"), 1);
}
