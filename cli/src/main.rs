//! `libauth`: see the library's documentation for the commands.

fn main() {
    std::process::exit(libauth_cli::run(std::env::args_os()));
}
