//! The `libauth` command: `secret`, `doctor`, `migrate`, `import` and
//! `provider add`. It reads libauth's declarative configuration (a JSON
//! file) and the environment; it never runs application code.
//!
//! Exit status: 0 when all is well, 1 when problems were found (or the
//! work failed), 2 for a usage error (a bad flag, an unreadable config).
//! The same code runs as the `libauth` binary (C users, `cargo install`)
//! and from the Node and Python packages' native modules ([`run`]).

use std::io::Write;

use clap::{Args, Parser, Subcommand};

mod database;
mod doctor;
mod import;
mod migrate;
mod output;
mod provider;
mod secret;

pub use output::Exit;

/// Authentication for any language: set-up and maintenance commands.
#[derive(Parser, Debug)]
#[command(name = "libauth", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Generate AUTH_SECRET (32 random bytes, base64url) into an env file.
    Secret(secret::SecretArgs),
    /// Check a configuration without running application code.
    Doctor(doctor::DoctorArgs),
    /// Apply, take back or show libauth's schema migrations (SQLite, PostgreSQL).
    Migrate(migrate::MigrateArgs),
    /// Copy users, accounts, passkeys and live sessions from another library's database.
    Import(import::ImportArgs),
    /// Set up a built-in provider: its callback URL, environment variables and console.
    Provider(ProviderCommand),
}

#[derive(Args, Debug)]
struct ProviderCommand {
    #[command(subcommand)]
    action: ProviderAction,
}

#[derive(Subcommand, Debug)]
enum ProviderAction {
    /// What to register at the provider and what to set here.
    Add(provider::AddArgs),
}

/// Run the command line `args` (the first is the program name, as in
/// `std::env::args`), writing to this process's stdout and stderr, and
/// return the exit status.
pub fn run<I, S>(args: I) -> i32
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    run_with(args, &mut stdout.lock(), &mut stderr.lock()) as i32
}

/// [`run`] for a host language's entry point (`npx libauth`, the Python
/// console script): `args` without the program name. A panic is exit
/// status 1, never an unwind into the host.
pub fn run_host(args: Vec<String>) -> i32 {
    std::panic::catch_unwind(|| run(std::iter::once("libauth".to_owned()).chain(args))).unwrap_or(Exit::Problems as i32)
}

/// [`run`], writing to `out` and `err`.
pub fn run_with<I, S>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> Exit
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e, out, err),
    };
    let result = match cli.command {
        Command::Secret(args) => secret::run(&args, out),
        Command::Doctor(args) => doctor::run(&args, out),
        Command::Migrate(args) => migrate::run(&args, out),
        Command::Import(args) => import::run(&args, out),
        Command::Provider(ProviderCommand { action: ProviderAction::Add(args) }) => provider::add(&args, out),
    };
    match result {
        Ok(exit) => exit,
        Err(failure) => {
            let _ = writeln!(err, "libauth: {failure}");
            failure.exit()
        }
    }
}

/// `--help` and `--version` print and succeed; anything else is one line
/// naming what is wrong, and exit status 2.
fn usage_error(e: &clap::Error, out: &mut dyn Write, err: &mut dyn Write) -> Exit {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = write!(out, "{}", e.render());
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                Exit::Usage
            } else {
                Exit::Ok
            }
        }
        _ => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            let _ = writeln!(err, "libauth: {first} (try --help)");
            Exit::Usage
        }
    }
}
