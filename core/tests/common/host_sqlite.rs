//! Issue 36: the host's own SQLite next to the engine's, and a reader in
//! another process.
//!
//! The engine links its own SQLite (rusqlite's bundled copy). A host
//! process often loads another: Python's `sqlite3` module (Django, a script
//! reading the same file), `node:sqlite`, a C program's libsqlite3. Here
//! that second copy is the system's `libsqlite3.so.0`, loaded with
//! `dlopen` (as Python's `_sqlite3` loads it). When it closes its last
//! connection to a file, nothing it can see stops it from checkpointing and
//! deleting the `-wal` and `-shm` files (POSIX locks never conflict within
//! one process), and before the fix the engine's connection went on
//! committing into the deleted WAL, seen by no one else.
//!
//! Include with `#[path = "common/host_sqlite.rs"] mod host_sqlite;`: the
//! module brings its own child-process test (`host_sqlite::reader_child`).
#![allow(dead_code)]

use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;

use serde_json::Value;

type OpenV2 = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, *const c_char) -> c_int;
type Exec = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_void, *mut c_void, *mut *mut c_char) -> c_int;
type Close = unsafe extern "C" fn(*mut c_void) -> c_int;

/// The system's SQLite, a copy separate from the engine's.
pub struct HostSqlite {
    open_v2: OpenV2,
    exec: Exec,
    close: Close,
}

const SQLITE_OPEN_READWRITE: c_int = 0x2;

impl HostSqlite {
    /// Load `libsqlite3.so.0` (the test needs it, as the hosts it stands
    /// for do: no silent skip).
    pub fn load() -> HostSqlite {
        let name = CString::new("libsqlite3.so.0").unwrap();
        // SAFETY: dlopen/dlsym with valid C strings; the handle is never
        // closed, so the function pointers stay valid.
        unsafe {
            let lib = libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            assert!(!lib.is_null(), "the system's libsqlite3.so.0 is needed (apt-get install libsqlite3-0)");
            let sym = |s: &str| {
                let c = CString::new(s).unwrap();
                let f = libc::dlsym(lib, c.as_ptr());
                assert!(!f.is_null(), "{s} not in libsqlite3.so.0");
                f
            };
            HostSqlite {
                open_v2: std::mem::transmute::<*mut c_void, OpenV2>(sym("sqlite3_open_v2")),
                exec: std::mem::transmute::<*mut c_void, Exec>(sym("sqlite3_exec")),
                close: std::mem::transmute::<*mut c_void, Close>(sym("sqlite3_close")),
            }
        }
    }

    /// What a host does all the time (Django per request): open the file,
    /// read, close. Closing the last connection of this copy is what
    /// deleted the WAL under the engine's connection.
    pub fn open_read_close(&self, db: &Path) {
        let path = CString::new(db.to_str().unwrap()).unwrap();
        let sql = CString::new("SELECT count(*) FROM sqlite_master").unwrap();
        // SAFETY: valid C strings and an out-pointer; the connection is
        // closed once, after use.
        unsafe {
            let mut conn: *mut c_void = std::ptr::null_mut();
            assert_eq!((self.open_v2)(path.as_ptr(), &mut conn, SQLITE_OPEN_READWRITE, std::ptr::null()), 0);
            assert_eq!(
                (self.exec)(conn, sql.as_ptr(), std::ptr::null(), std::ptr::null_mut(), std::ptr::null_mut()),
                0
            );
            assert_eq!((self.close)(conn), 0);
        }
    }
}

/// The rows of `sql` on `db`, read by another process (this test binary
/// run again, with a fresh SQLite of its own), every value as text.
pub fn read_elsewhere(db: &Path, sql: &str) -> Vec<Vec<Option<String>>> {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["host_sqlite::reader_child", "--exact", "--ignored", "--nocapture", "--test-threads", "1"])
        .env("LIBAUTH_READER_CHILD", serde_json::json!({ "db": db, "sql": sql }).to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "reader failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let line =
        stdout.lines().find_map(|l| l.split_once("ROWS ").map(|(_, rows)| rows)).expect("the reader printed its rows");
    serde_json::from_str(line).unwrap()
}

/// The one value of a one-row, one-column query, read by another process.
pub fn value_elsewhere(db: &Path, sql: &str) -> Option<String> {
    let rows = read_elsewhere(db, sql);
    assert_eq!(rows.len(), 1, "{sql}: {rows:?}");
    rows[0][0].clone()
}

#[test]
#[ignore = "the body of a child process: read_elsewhere runs it with --ignored"]
fn reader_child() {
    let Ok(input) = std::env::var("LIBAUTH_READER_CHILD") else { return };
    let input: Value = serde_json::from_str(&input).unwrap();
    let conn = rusqlite::Connection::open(input["db"].as_str().unwrap()).unwrap();
    let mut stmt = conn.prepare(input["sql"].as_str().unwrap()).unwrap();
    let columns = stmt.column_count();
    let rows: Vec<Vec<Option<String>>> = stmt
        .query_map([], |row| {
            (0..columns)
                .map(|i| {
                    Ok(match row.get_ref(i)? {
                        rusqlite::types::ValueRef::Null => None,
                        rusqlite::types::ValueRef::Integer(n) => Some(n.to_string()),
                        rusqlite::types::ValueRef::Real(x) => Some(x.to_string()),
                        rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                            Some(String::from_utf8_lossy(t).into_owned())
                        }
                    })
                })
                .collect()
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    println!("ROWS {}", serde_json::to_string(&rows).unwrap());
}
