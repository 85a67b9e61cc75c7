//! `libauth migrate`: the engine's versioned schemas, applied, taken back,
//! shown (`--status`) or printed (`--dry-run`). The steps run in the
//! engine's own code, under its lock (SQLite's write lock, a PostgreSQL
//! advisory lock), so running this while applications start is safe; a
//! database newer than this binary is refused.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use libauth_core::store::migrations::{self, Direction, Migrated, Migration, Step};
use libauth_core::store::{postgres, sqlite};
use serde_json::{json, Value};

use crate::database::{self, Database};
use crate::output::{print_json, write_line, Exit, Failure, Outcome};

#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// postgres://…, sqlite:PATH, or a SQLite file path (default: the
    /// config's adapter, else DATABASE_URL).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
    /// A libauth configuration (JSON) whose `adapter` names the database.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The PostgreSQL schema holding libauth's tables (default: public).
    #[arg(long, value_name = "NAME")]
    schema: Option<String>,
    /// Print the SQL that would run, and run nothing.
    #[arg(long)]
    dry_run: bool,
    /// Migrate to this version (up or down) instead of the newest.
    #[arg(long, value_name = "N", conflicts_with = "down")]
    to: Option<u32>,
    /// Take back the newest N migrations.
    #[arg(long, value_name = "N")]
    down: Option<u32>,
    /// Show the database's version and each migration, and change nothing.
    #[arg(long, conflicts_with_all = ["dry_run", "to", "down"])]
    status: bool,
    /// Report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &MigrateArgs, out: &mut dyn Write) -> Outcome {
    let db = database::resolve(args.database.as_deref(), args.config.as_deref(), args.schema.as_deref())?;
    let list = migrations_of(&db);
    let (current, _) = plan(&db, None)?;
    let target = match (args.to, args.down) {
        (Some(to), _) => Some(to),
        (None, Some(n)) => Some(current.checked_sub(n).ok_or_else(|| {
            Failure::Usage(format!("--down {n}: the database is at version {current}, so at most --down {current}"))
        })?),
        (None, None) => None,
    };
    if args.status {
        return status(&db, list, current, args.json, out);
    }
    let (from, steps) = plan(&db, target)?;
    if args.dry_run {
        return dry_run(&db, from, &steps, args.json, out);
    }
    let migrated = apply(&db, target)?;
    let message = if migrated.from == migrated.to {
        format!("{}: already at schema version {}", db.describe(), migrated.to)
    } else {
        format!("{}: migrated from schema version {} to {}", db.describe(), migrated.from, migrated.to)
    };
    if args.json {
        print_json(out, &json!({ "database": db.describe(), "from": migrated.from, "to": migrated.to }))?;
    } else {
        write_line(out, &message)?;
    }
    Ok(Exit::Ok)
}

fn migrations_of(db: &Database) -> &'static [Migration] {
    match db {
        Database::Sqlite(_) => sqlite::MIGRATIONS,
        Database::Postgres(_) => postgres::MIGRATIONS,
    }
}

fn failed(db: &Database, e: impl std::fmt::Display) -> Failure {
    Failure::Failed(format!("{}: {e}", db.describe()))
}

/// The database's version and the steps to `target`, changing nothing (a
/// SQLite file that does not exist yet is at version 0 and is not created).
fn plan(db: &Database, target: Option<u32>) -> Result<(u32, Vec<Step>), Failure> {
    match db {
        Database::Sqlite(path) if !path.exists() => {
            let steps = migrations::plan(sqlite::MIGRATIONS, 0, target).map_err(|e| failed(db, e))?;
            Ok((0, steps))
        }
        Database::Sqlite(path) => sqlite::plan_file(path, target).map_err(|e| failed(db, e)),
        Database::Postgres(pg) => postgres::plan(pg, target).map_err(|e| failed(db, e)),
    }
}

fn apply(db: &Database, target: Option<u32>) -> Result<Migrated, Failure> {
    match db {
        Database::Sqlite(path) => sqlite::migrate_file(path, target).map_err(|e| failed(db, e)),
        Database::Postgres(pg) => postgres::migrate(pg, target).map_err(|e| failed(db, e)),
    }
}

/// A step's SQL as it would run on this database.
fn sql_of(db: &Database, step: &Step) -> String {
    match db {
        Database::Sqlite(_) => step.sql().to_owned(),
        Database::Postgres(pg) => postgres::step_sql(step, &pg.schema),
    }
}

fn direction(step: &Step) -> &'static str {
    match step.direction {
        Direction::Up => "up",
        Direction::Down => "down",
    }
}

fn status(db: &Database, list: &[Migration], current: u32, json: bool, out: &mut dyn Write) -> Outcome {
    let latest = migrations::latest(list);
    if json {
        let each: Vec<Value> = list
            .iter()
            .map(|m| json!({ "version": m.version, "name": m.name, "applied": m.version <= current }))
            .collect();
        print_json(
            out,
            &json!({ "database": db.describe(), "version": current, "latest": latest, "migrations": each }),
        )?;
    } else {
        write_line(out, &format!("{}: schema version {current} of {latest}", db.describe()))?;
        for m in list {
            let state = if m.version <= current { "applied" } else { "pending" };
            write_line(out, &format!("  {:>3}  {state:<8} {}", m.version, m.name))?;
        }
    }
    Ok(Exit::Ok)
}

fn dry_run(db: &Database, from: u32, steps: &[Step], json: bool, out: &mut dyn Write) -> Outcome {
    let to = steps.last().map_or(from, Step::version_after);
    if json {
        let each: Vec<Value> = steps
            .iter()
            .map(|s| {
                json!({
                    "version": s.migration.version,
                    "name": s.migration.name,
                    "direction": direction(s),
                    "sql": sql_of(db, s),
                })
            })
            .collect();
        print_json(out, &json!({ "database": db.describe(), "from": from, "to": to, "steps": each }))?;
        return Ok(Exit::Ok);
    }
    write_line(out, &format!("-- {}: schema version {from} to {to} (dry run: nothing was changed)", db.describe()))?;
    for s in steps {
        write_line(out, &format!("\n-- {} {}: {}", direction(s), s.migration.version, s.migration.name))?;
        write_line(out, sql_of(db, s).trim())?;
        write_line(out, &format!("-- then the database records schema version {}", s.version_after()))?;
    }
    Ok(Exit::Ok)
}
